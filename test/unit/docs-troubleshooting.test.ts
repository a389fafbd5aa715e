import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/markdown-docs.js';

/**
 * docs/troubleshooting.md says, for every typed error, what it means and
 * what to do. Read from src/errors.ts itself, so that a new error class,
 * code or reason fails here until the page has it.
 */
interface ErrorCatalogue {
  classes: string[];
  codes: string[];
  /** Each union of reasons (`WorkerStartReason`, `ContextErrorContext`, ...) with the class it belongs to. */
  reasons: Array<{ type: string; errorClass: string; values: string[] }>;
}

const literals = (union: string) => [...union.matchAll(/'([^']+)'/g)].map((match) => match[1]!);

function readCatalogue(source: string): ErrorCatalogue {
  const classes = [...source.matchAll(/export class (\w+) extends (?:EngramError|Error)\b/g)].map((match) => match[1]!);
  const codes = literals(/export type ErrorCode =([^;]+);/.exec(source)?.[1] ?? '');
  const reasons = [...source.matchAll(/export type (\w+(?:Reason|Context)) =([^;]+);/g)].map((match) => {
    const type = match[1]!;
    const errorClass = classes.find((name) => type.startsWith(name) || type.startsWith(name.replace(/Error$/, '')));
    if (!errorClass) throw new Error(`src/errors.ts: ${type} belongs to no error class`);
    return { type, errorClass, values: literals(match[2]!) };
  });
  return { classes, codes, reasons };
}

/** The text under `## <heading>` up to the next `## `. */
function section(page: string, heading: string): string | undefined {
  const start = page.search(new RegExp(`^## ${heading}\\s*$`, 'm'));
  if (start < 0) return undefined;
  const rest = page.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** What the page lacks: every class needs its own section saying what it means and what to do; every code and reason appears as code. */
function missingFromPage(catalogue: ErrorCatalogue, page: string): string[] {
  const missing: string[] = [];
  for (const name of catalogue.classes) {
    const text = section(page, name);
    if (text === undefined) missing.push(`a "## ${name}" section`);
    else if (name !== 'EngramError' && !(/\*\*What it means\.\*\*/.test(text) && /\*\*What to do\.\*\*/.test(text))) missing.push(`"What it means" and "What to do" under ${name}`);
  }
  for (const code of catalogue.codes) if (!page.includes(`\`${code}\``)) missing.push(`the code \`${code}\``);
  for (const { type, errorClass, values } of catalogue.reasons) {
    const text = section(page, errorClass) ?? '';
    for (const value of values) if (!text.includes(`\`'${value}'\``) && !text.includes(`\`${value}\``)) missing.push(`${type} '${value}' under ${errorClass}`);
  }
  return missing;
}

describe('docs/troubleshooting.md', () => {
  const source = readFileSync(join(ROOT, 'src/errors.ts'), 'utf8');
  const page = readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8');

  it('has every error class, code and reason of src/errors.ts', () => {
    expect(missingFromPage(readCatalogue(source), page)).toEqual([]);
  });

  it('reads the catalogue from src/errors.ts (the check is not vacuous)', () => {
    const catalogue = readCatalogue(source);
    expect(catalogue.classes).toEqual(expect.arrayContaining(['EngramError', 'ValidationError', 'WorkerStartError', 'ContextError']));
    expect(catalogue.codes).toEqual(expect.arrayContaining(['VALIDATION', 'WORKER_START', 'CONTEXT']));
    expect(catalogue.reasons.find((r) => r.type === 'WorkerStartReason')).toEqual({ type: 'WorkerStartReason', errorClass: 'WorkerStartError', values: ['unsupported', 'create', 'load', 'timeout', 'message'] });
  });

  it('fails for an error class or reason the page does not have', () => {
    const added = `${source}\nexport type NewThingReason = 'fizz' | 'buzz';\nexport class NewThingError extends EngramError {}\n`;
    const missing = missingFromPage(readCatalogue(added.replace("| 'CONTEXT'", "| 'CONTEXT'\n  | 'NEW_THING'")), page);
    expect(missing).toEqual(['a "## NewThingError" section', 'the code `NEW_THING`', "NewThingReason 'fizz' under NewThingError", "NewThingReason 'buzz' under NewThingError"]);
  });
});
