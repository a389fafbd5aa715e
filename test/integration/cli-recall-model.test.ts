/**
 * `npx engram recall` loads the model that wrote the store (issue 43): the
 * model engram ships needs no flag; another model needs --model-path, and a
 * missing one says so (or that the folder is not there), never that
 * @huggingface/transformers is missing. Needs dist/ (npx tsup), like cli.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.node.js';

const BIN = fileURLToPath(new URL(`../../${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).bin.engram}`, import.meta.url));
const run = promisify(execFile);
/** The CLI's stdout, or its stderr and exit code when it fails. */
const engram = (...args: string[]) =>
  run(process.execPath, [BIN, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

const root = mkdtempSync(join(tmpdir(), 'engram-cli-model-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A store whose vectors claim to come from a transformer model (4-d stand-ins: recall never gets as far as embedding). */
const otherModel = { id: 'transformers.js/Xenova/all-MiniLM-L6-v2/q8', dimension: 4, embed: async (texts: string[]) => texts.map(() => new Float32Array([1, 0, 0, 0])) };

beforeAll(async () => {
  // The app's zero-config memory: no embedder option.
  const bundled = await createMemory({ name: 'agent', directory: join(root, 'bundled') });
  await bundled.facts.addMany([{ text: 'Prefers PostgreSQL for relational data' }, { text: 'Allergic to peanuts' }]);
  await bundled.close();
  const other = await createMemory({ name: 'agent', directory: join(root, 'other'), embedder: otherModel });
  await other.facts.add({ text: 'Prefers PostgreSQL for relational data' });
  await other.close();
});

describe('npx engram recall and the store\'s model', () => {
  it("recalls a store written with engram's bundled model with no model flag", async () => {
    const { code, stdout, stderr } = await engram('recall', 'which database?', '--dir', join(root, 'bundled'), '--k', '1');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^1\. \[fact\] \d\.\d{3} \S+ +Prefers PostgreSQL for relational data\n/);
  });

  it('another model without --model-path: "pass --model-path"; with a folder that is not there: "folder not found"', async () => {
    const missing = await engram('recall', 'which database?', '--dir', join(root, 'other'));
    // A flag the command needs is a usage mistake (exit 2); a folder that is not there is a failure (exit 1).
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"Xenova/all-MiniLM-L6-v2"');
    expect(missing.stderr).toContain('pass --model-path');
    expect(missing.stderr).not.toContain('@huggingface/transformers');

    const wrong = join(root, 'no-models-here');
    const notFound = await engram('recall', 'which database?', '--dir', join(root, 'other'), '--model-path', wrong);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toContain(`folder not found: ${wrong}/`);
    expect(notFound.stderr).not.toContain('@huggingface/transformers');
  });
});
