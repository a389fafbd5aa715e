/**
 * engram has two builds of its main entry (package.json "exports"): the
 * browser/default one (src/index.ts) and the Node one (src/index.node.ts,
 * the `node` condition), which alone can open a durable store on disk. These
 * tests pin what each build does with `directory`, and that the package's own
 * exports send Node to the Node build.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory as createMemoryBrowserBuild, ValidationError } from '../../src/index.js';
import { createMemory as createMemoryNodeBuild } from '../../src/index.node.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';
import { memoryFixture } from '../support/memory-fixture.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-build-entries-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const memories = memoryFixture();

describe('the two builds of createMemory', () => {
  it('the browser build refuses `directory` with a ValidationError naming the option, and writes nothing there', async () => {
    const directory = freshDir();
    const error = await createMemoryBrowserBuild({ name: 'browser-build', directory, worker: false, embedder: hashEmbedder }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: 'directory', message: 'Node only' }]);
    expect((error as Error).message).toContain('`node` export condition');
    expect(readdirSync(directory)).toEqual([]);
  });

  it('the Node build opens a durable store in `directory`, and what it wrote is there after reopening', async () => {
    const directory = freshDir();
    const first = memories.keep(await createMemoryNodeBuild({ name: 'node-build', directory, embedder: hashEmbedder }));
    const fact = await first.facts.add({ text: 'The user keeps bees on the roof' });
    await first.close();
    expect(readdirSync(directory).length).toBeGreaterThan(0);
    const again = memories.keep(await createMemoryNodeBuild({ name: 'node-build', directory, embedder: hashEmbedder }));
    expect((await again.facts.get(fact.id))?.text).toBe('The user keeps bees on the roof');
    await again.close();
  });

  it("Node resolves `engram` to the Node build (dist/index.node.js), and a browser bundler's conditions to dist/index.js", () => {
    // Run in a child so the resolution is Node's own (the package refers to itself by name through "exports").
    const resolve = (conditions: string[]) =>
      execFileSync(process.execPath, [...conditions.flatMap((c) => ['--conditions', c]), '--input-type=module', '-e', "console.log(import.meta.resolve('engram'))"], { cwd: root, encoding: 'utf8' }).trim();
    expect(resolve([])).toMatch(/\/dist\/index\.node\.js$/);
    // What a browser bundler asks for: `browser` and `import`, never `node` (checked against the exports map itself).
    const pkg = JSON.parse(execFileSync(process.execPath, ['-p', "JSON.stringify(require('./package.json').exports['.'])"], { cwd: root, encoding: 'utf8' }));
    const pick = (entry: Record<string, unknown>, conditions: string[]): unknown => {
      for (const [key, value] of Object.entries(entry)) {
        if (key === 'default' || conditions.includes(key)) return typeof value === 'string' ? value : pick(value as Record<string, unknown>, conditions);
      }
      return undefined;
    };
    expect(pick(pkg, ['browser', 'import', 'module'])).toBe('./dist/index.js');
    expect(pick(pkg, ['node', 'import'])).toBe('./dist/index.node.js');
    expect(pick(pkg, ['node', 'require'])).toBe('./dist/index.node.cjs');
  });
});

describe("the package's exports map", () => {
  it('every file the package\'s "exports" names is in the build (types, require and import targets alike)', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const targets = (entry: unknown): string[] => (typeof entry === 'string' ? [entry] : Object.values(entry as Record<string, unknown>).flatMap(targets));
    const named = Object.entries(exports).flatMap(([subpath, entry]) => targets(entry).map((target) => ({ subpath, target })));
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter(({ target }) => !existsSync(join(root, target)))).toEqual([]);
  });
});
