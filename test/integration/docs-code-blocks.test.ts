import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, codeBlocksOf, docFiles, type CodeBlock } from '../support/markdown-docs.js';

/**
 * Every JavaScript or TypeScript block of README.md and docs/ says what it
 * is, in its fence's info string:
 * - `runnable`: run with Node against the built package (dist/), each in a
 *   fresh folder, offline on engram's bundled model; comment lines right
 *   after a `console.log(...)` line are what it prints, checked with dates
 *   and times aside;
 * - `browser`: type-checked against the package's browser types (it needs a
 *   page to run: the examples under examples/browser/ run that code);
 * - `fragment`: a listing or a piece of a program, not checked.
 * A renamed option or method then fails here instead of leaving a stale page.
 */
const KINDS = ['runnable', 'browser', 'fragment'] as const;
const CODE_LANGUAGES = new Set(['js', 'mjs', 'javascript', 'ts', 'mts', 'typescript', 'tsx', 'jsx']);
/** Inside the repository, so that `import 'engram'` resolves to this package (its exports: dist/) by self-reference. */
const BLOCKS_DIR = join(ROOT, '.doc-blocks');
const run = promisify(execFile);

const blocks = docFiles().flatMap(codeBlocksOf).filter((block) => CODE_LANGUAGES.has(block.language));
const named = (block: CodeBlock) => `${block.file}:${block.line}`;
const fileName = (block: CodeBlock) => `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}`;

/** The output a block shows: the comment lines that directly follow each `console.log(` line, `//` stripped. */
function shownOutput(code: string): string[] {
  const lines = code.split('\n');
  const shown: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*\/\//.test(line) || !line.includes('console.log(')) return;
    for (let j = i + 1; j < lines.length && /^\s*\/\/( |$)/.test(lines[j]!); j++) shown.push(lines[j]!.replace(/^\s*\/\/ ?/, ''));
  });
  return shown;
}

/** Dates and times differ from run to run; everything else must be as shown. */
function withoutDates(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?/g, '<timestamp>')
    .replace(/\d{4}-\d{2}-\d{2}/g, '<date>')
    .replace(/\d{4}-\d{2}(?!\d)/g, '<month>')
    .replace(/\b\d{1,2}:\d{2}(:\d{2})?\b/g, '<time>')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trimEnd();
}

describe('code blocks in README.md and docs/', () => {
  beforeAll(() => {
    rmSync(BLOCKS_DIR, { recursive: true, force: true });
    mkdirSync(BLOCKS_DIR, { recursive: true });
  });

  it('are each marked runnable, browser or fragment', () => {
    const unmarked = blocks.filter((block) => block.tags.filter((tag) => (KINDS as readonly string[]).includes(tag)).length !== 1).map(named);
    expect(unmarked).toEqual([]);
    // The pages this guards: the README's two quick starts are a browser block and a runnable one.
    expect(blocks.filter((block) => block.file === 'README.md').map((block) => block.tags[0])).toEqual(['browser', 'runnable']);
  });

  it('read their shown output from the comments after console.log, dates aside', () => {
    expect(shownOutput("const a = 1;\nconsole.log(a);\n// 1\n//\n// two\nnext();\n// not output")).toEqual(['1', '', 'two']);
    expect(withoutDates('Now: 2026-11-28 06:43 (UTC)\n- (2026-11-28, turn) last month (2026-10)')).toBe(withoutDates('Now: 2027-01-02 23:59 (UTC)\n- (2027-01-02, turn) last month (2026-12)'));
    expect(withoutDates('The user lives in Porto.')).not.toBe(withoutDates('The user lives in Lisbon.'));
  });

  const runnable = blocks.filter((block) => block.tags.includes('runnable'));
  it.each(runnable.map((block) => [named(block), block] as const))('%s runs against dist/ and prints what it shows', async (_name, block) => {
    const entry = join(ROOT, 'dist', 'index.node.js');
    expect(existsSync(entry), 'dist/ is missing: build first (npx tsup --silent)').toBe(true);
    const source = block.language.startsWith('ts') ? (await transform(block.code, { loader: 'ts', format: 'esm', target: 'node20' })).code : block.code;
    const script = join(BLOCKS_DIR, `${fileName(block)}.mjs`);
    writeFileSync(script, source);
    const cwd = mkdtempSync(join(tmpdir(), 'engram-doc-block-'));
    try {
      const { stdout } = await run(process.execPath, [script], { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
      const shown = shownOutput(block.code);
      if (shown.length > 0) expect(withoutDates(stdout)).toBe(withoutDates(shown.join('\n')));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('browser blocks type-check against the package', () => {
    const browser = blocks.filter((block) => block.tags.includes('browser'));
    expect(browser.length).toBeGreaterThan(0);
    const dir = join(BLOCKS_DIR, 'browser');
    mkdirSync(dir, { recursive: true });
    const files = browser.map((block) => {
      const file = join(dir, `${fileName(block)}.${block.language.startsWith('ts') ? 'ts' : 'js'}`);
      writeFileSync(file, block.code);
      return { file, block };
    });
    expect(existsSync(join(ROOT, 'dist', 'index.d.ts')), 'dist/ is missing: build first (npx tsup --silent)').toBe(true);
    const program = ts.createProgram(
      files.map((f) => f.file),
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        allowJs: true,
        checkJs: true,
        moduleDetection: ts.ModuleDetectionKind.Force,
      },
    );
    const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const at = files.find((f) => f.file === diagnostic.file?.fileName);
      const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
      const where = at ? `${at.block.file}:${at.block.line + line}` : (diagnostic.file?.fileName ?? '');
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(errors).toEqual([]);
  });
});
