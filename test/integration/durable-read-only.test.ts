import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory, StorageError, ValidationError, type Memory } from '../../src/index.node.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';

/**
 * `createMemory({ directory, readOnly: true })` reads a snapshot of a durable
 * store, even one another owner holds open, and never writes, truncates,
 * compacts, creates or removes anything. A store name is a name, never a
 * path: one that would leave the directory is refused before anything is
 * written.
 */
const root = mkdtempSync(join(tmpdir(), 'engram-read-only-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const open = (directory: string, options: { readOnly?: boolean; name?: string } = {}): Promise<Memory> =>
  createMemory({ name: options.name ?? 'agent', directory, embedder: hashEmbedder, readOnly: options.readOnly });

/** Every file and folder under `folder`, with the bytes, size and modification time of each file. */
function tree(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        out[`${relative(folder, path)}/`] = 'folder';
        walk(path);
      } else {
        const stats = statSync(path);
        out[relative(folder, path)] = `${stats.size} ${stats.mtimeMs} ${readFileSync(path).toString('base64')}`;
      }
    }
  };
  walk(folder);
  return out;
}

const ids = async (memory: Memory) => (await memory.facts.list({ userId: 'ana', limit: 100 })).map((fact) => fact.id).sort();

describe('durable store: read-only opens and store names', () => {
  it('a read-only open of a store another memory holds open sees what it committed, refuses writes, and changes no file', async () => {
    const directory = join(root, 'shared');
    const owner = await open(directory);
    await owner.facts.addMany([
      { id: 'f1', userId: 'ana', text: 'Lives in Lisbon' },
      { id: 'f2', userId: 'ana', text: 'Prefers PostgreSQL' },
    ]);
    const before = tree(directory);

    const reader = await open(directory, { readOnly: true });
    expect(await ids(reader)).toEqual(['f1', 'f2']);
    // A recall that would record access times, an export, a forced save: reads only, for this memory.
    expect((await reader.recall('Lisbon', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('f1');
    await reader.export();
    await expect(reader.facts.add({ userId: 'ana', text: 'A write' })).rejects.toMatchObject({ name: 'StorageError', message: expect.stringContaining('read-only') });
    await expect(reader.facts.delete('f1')).rejects.toBeInstanceOf(StorageError);
    await reader.close();
    expect(tree(directory)).toEqual(before);

    // The owner goes on writing; a new snapshot sees it. Its lock was never touched.
    await owner.facts.add({ id: 'f3', userId: 'ana', text: 'Has a dog named Tuna' });
    const later = await open(directory, { readOnly: true });
    expect(await ids(later)).toEqual(['f1', 'f2', 'f3']);
    await later.close();
    expect(readFileSync(join(directory, 'agent', 'LOCK'), 'utf8')).toContain(`"pid":${process.pid}`);
    await owner.close();
  });

  it('a read-only open leaves a torn tail where it is (a writable open cuts it) and saves no index snapshot', async () => {
    const live = join(root, 'torn-live');
    const memory = await open(live);
    await memory.facts.addMany(Array.from({ length: 30 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact ${i}` })));
    await memory.close();
    const again = await open(live);
    await again.facts.add({ id: 'late', userId: 'ana', text: 'written last' });
    const directory = join(root, 'torn');
    cpSync(live, directory, { recursive: true });
    await again.close();
    unlinkSync(join(directory, 'agent', 'LOCK'));
    const journal = join(directory, 'agent', 'journal.log');
    truncateSync(journal, statSync(journal).size - 7);
    // No index snapshot files: the open reads the records, and a writable engine would save a snapshot.
    rmSync(join(directory, 'agent', 'pages'), { recursive: true, force: true });
    const before = tree(directory);

    const reader = await open(directory, { readOnly: true });
    expect(await ids(reader)).toHaveLength(30);
    expect((await reader.info()).openedFrom).toBe('records');
    await reader.close();
    expect(tree(directory)).toEqual(before);

    const writer = await open(directory);
    expect(await ids(writer)).toHaveLength(30);
    await writer.close();
    expect(statSync(journal).size).toBe(0);
  });

  it('a read-only open of a store that does not exist is a StorageError that creates nothing; readOnly needs a directory', async () => {
    const directory = join(root, 'nothing-here');
    await expect(open(directory, { readOnly: true })).rejects.toMatchObject({ name: 'StorageError', message: expect.stringContaining('There is no engram store "agent"') });
    expect(existsSync(directory)).toBe(false);
    mkdirSync(directory);
    await expect(open(directory, { readOnly: true, name: 'ghost' })).rejects.toBeInstanceOf(StorageError);
    expect(readdirSync(directory)).toEqual([]);
    await expect(createMemory({ name: 'agent', readOnly: true, embedder: hashEmbedder, worker: false })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [{ path: 'readOnly', message: 'needs directory' }],
    });
  });

  it("a store name that is a path ('..', '.', separators) is a ValidationError and nothing is written, in the directory or above it", async () => {
    const parent = join(root, 'names');
    const directory = join(parent, 'memory');
    mkdirSync(directory, { recursive: true });
    const before = tree(parent);
    for (const name of ['..', '.', 'a/b', '../escape', 'a\\b', '/abs']) {
      for (const readOnly of [false, true]) {
        const error = await open(directory, { name, readOnly }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues, name).toEqual([{ path: 'name', message: expect.any(String) }]);
      }
    }
    expect(tree(parent)).toEqual(before);
    // A name with other punctuation is still a name: its folder is percent-encoded inside the directory.
    const dotted = await open(directory, { name: 'team.agent v2' });
    await dotted.close();
    expect(readdirSync(directory)).toEqual(['team.agent%20v2']);
  });
});
