import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { createMemory, NotFoundError, type Memory } from '../../src/index.node.js';
import { createSchema, load } from '../../src/store/durable/idb-image.js';
import { readImage } from '../../src/store/durable/store-image.js';
import { hashEmbedder } from '../support/hash-embedder.mjs';
import { snapshot } from '../support/memory.js';

/**
 * Opening a durable store loads its image and replays its journal in
 * batches of transactions (durable-store.ts, LOAD_BATCH): the state must be
 * the same as one transaction would give, whatever the batch boundaries cut
 * through (an image of thousands of rows, one journaled write larger than a
 * batch, deletes and updates after it).
 */
const root = mkdtempSync(join(tmpdir(), 'engram-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const open = (directory: string): Promise<Memory> => createMemory({ name: 'agent', directory, embedder: hashEmbedder });

describe('durable store: loading in batches', () => {
  it('an image of 2,600 memories and a journal that crosses batches reopen exactly as they were written', async () => {
    const directory = join(root, 'store');
    const first = await open(directory);
    await first.facts.addMany(Array.from({ length: 2_500 }, (_, i) => ({ id: `f${i}`, userId: i % 2 ? 'ana' : 'bo', text: `fact number ${i} about topic ${i % 17}` })), { merge: false });
    await first.turns.addMany(Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, userId: 'ana', sessionId: `s${i % 3}`, speaker: i % 2 ? 'user' : 'assistant', text: `turn ${i}` })));
    await first.close();

    // The image alone.
    const second = await open(directory);
    expect((await second.info()).indexed).toBe(2_600);
    // Then a journal: one write of 1,500 (larger than a batch), updates and deletes of image rows after it.
    await second.facts.addMany(Array.from({ length: 1_500 }, (_, i) => ({ id: `g${i}`, userId: 'ana', text: `later fact ${i}` })), { merge: false });
    for (const i of [3, 1_999, 2_499]) await second.facts.update(`f${i}`, { text: `updated fact ${i}`, pinned: true });
    for (const i of [0, 1_000, 2_498]) await second.facts.delete(`f${i}`);
    await second.facts.delete('g1499');
    await second.turns.delete('t0');
    const expected = await snapshot(second);
    // What a crash leaves at this moment: the image, the journal, and a lock whose owner is gone.
    const crashed = join(root, 'crashed');
    cpSync(directory, crashed, { recursive: true });
    unlinkSync(join(crashed, 'agent', 'LOCK'));
    await second.close();

    for (const folder of [crashed, directory]) {
      const reopened = await open(folder);
      // After the crash, the image's index snapshot plus a replay of the journaled write log; after close(), the image's own.
      expect((await reopened.info()).openedFrom).toBe('snapshot');
      expect(await snapshot(reopened)).toEqual(expected);
      expect((await reopened.info()).indexed).toBe(2_600 + 1_500 - 5);
      expect((await reopened.facts.get('f1999')).text).toBe('updated fact 1999');
      await expect(reopened.facts.get('f1000')).rejects.toThrow(NotFoundError);
      await reopened.close();
    }
  });

  it('a crash after a snapshot save that reached only memory still opens from the snapshot of the image and the journaled log', async () => {
    const directory = join(root, 'saved-then-crashed');
    const first = await open(directory);
    await first.facts.addMany(Array.from({ length: 400 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact number ${i} about topic ${i % 17}` })), { merge: false });
    await first.close();

    const second = await createMemory({ name: 'agent', directory, embedder: hashEmbedder, indexSnapshot: { saveDelayMs: 10 } });
    await second.facts.add({ id: 'late-1', userId: 'ana', text: 'a fact after the image' });
    // A quiet second: the save (10 ms after the write) empties the log in memory, not in the journal (the snapshot it saved is not journaled either).
    await new Promise((r) => setTimeout(r, 1_000));
    await second.facts.add({ id: 'late-2', userId: 'ana', text: 'a fact after the save' });
    await second.facts.delete('f7');
    const expected = await snapshot(second);
    const crashed = join(root, 'saved-then-crashed-copy');
    cpSync(directory, crashed, { recursive: true });
    unlinkSync(join(crashed, 'agent', 'LOCK'));
    await second.close();

    const reopened = await open(crashed);
    // late-1 (before the save), late-2 and f7 (after it): the journal kept the log's rows from both sides of the save.
    // (f7's delete rewrote its vector block, so the block's other memories are re-read too: more than 3.)
    expect(await reopened.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 401 });
    expect((await reopened.info()).replayed).toBeGreaterThan(3);
    expect(await snapshot(reopened)).toEqual(expected);
    expect((await reopened.recall('a fact after the save', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('late-2');
    await reopened.close();
  });

  it("the index snapshot's vectors are page files beside the image, not in it, and close() leaves exactly the files the image names", async () => {
    const directory = join(root, 'page-files');
    const namedByImage = () =>
      readImage(join(directory, 'agent', 'image.v8'))!
        .stores.snapshot!.filter((row) => (row as { key: string }).key !== 'header')
        .map((row) => (row as { payload: unknown }).payload);
    const filesThere = () => readdirSync(join(directory, 'agent', 'pages')).map(decodeURIComponent).sort();

    const first = await createMemory({ name: 'agent', directory, embedder: hashEmbedder, indexSnapshot: { saveDelayMs: 10 } });
    await first.facts.addMany(Array.from({ length: 600 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact number ${i} about topic ${i % 17}` })), { merge: false });
    await first.close();
    const payloads = namedByImage();
    expect(payloads.length).toBeGreaterThan(0);
    // Each row names its file and length; no vector bytes (or Blobs) in the image.
    for (const payload of payloads) expect(payload).toEqual({ file: expect.stringMatching(/^page:\d+:/), bytes: expect.any(Number) });
    expect(filesThere()).toEqual(payloads.map((p) => (p as { file: string }).file).sort());

    // Saves while open replace pages (new names); close() sweeps the replaced files.
    const second = await createMemory({ name: 'agent', directory, embedder: hashEmbedder, indexSnapshot: { saveDelayMs: 10 } });
    await second.facts.delete('f3');
    await new Promise((r) => setTimeout(r, 300));
    await second.facts.add({ id: 'late', userId: 'ana', text: 'a later fact' });
    await second.close();
    const after = namedByImage().map((p) => (p as { file: string }).file).sort();
    expect(after).not.toEqual(payloads.map((p) => (p as { file: string }).file).sort());
    expect(filesThere()).toEqual(after);

    const third = await open(directory);
    expect(await third.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 600 });
    expect((await third.recall('a later fact', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('late');
    await third.close();
  });

  it('a save after recalls alone writes the pages’ documents again and keeps their vector files; the next open answers as a records open', async () => {
    const directory = join(root, 'recalls-only');
    const DAY = 86_400_000;
    let now = Date.parse('2026-01-01T00:00:00Z');
    const options = { name: 'agent', directory, embedder: hashEmbedder, clock: () => now };
    const header = () =>
      readImage(join(directory, 'agent', 'image.v8'))!.stores.snapshot!.find((row) => (row as { key: string }).key === 'header') as { pages: { page: number; key: string; file?: string }[] };
    const filesThere = () => readdirSync(join(directory, 'agent', 'pages')).map(decodeURIComponent).sort();
    const queries = ['fact about topic 3', 'topic 11 again', 'number 2000', 'fact number 7'];
    const answers = async (memory: Memory) => {
      const out: unknown[] = [];
      for (const query of queries) out.push((await memory.recall(query, { userId: 'ana', k: 15, touch: false })).map((h) => [h.memory.id, Number(h.score.toFixed(6))]));
      return out;
    };

    const first = await createMemory(options);
    // Two pages (2,048 memories a page).
    await first.facts.addMany(Array.from({ length: 2_600 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact number ${i} about topic ${i % 17}` })), { merge: false });
    await first.close();
    const files = filesThere();
    expect(files).toHaveLength(2);
    const keys = header().pages.map((p) => p.key);

    // A month later: recalls (access times) and a pin, nothing that changes a vector or a text.
    now += 30 * DAY;
    const second = await createMemory(options);
    const touched = new Set<string>();
    for (const query of queries) for (const hit of await second.recall(query, { userId: 'ana', k: 40 })) touched.add(hit.memory.id);
    await second.facts.update('f2500', { pinned: true });
    const pages = new Set([...touched].map((id) => (Number(id.slice(1)) < 2_048 ? 0 : 1)));
    expect(pages.size).toBe(2);
    await second.close();
    // Both pages were saved again (new rows, holding the new access times and the pin) with the files they had: no vectors written.
    expect(filesThere()).toEqual(files);
    const saved = header().pages;
    expect(saved.map((p) => p.key).filter((key) => keys.includes(key))).toEqual([]);
    expect(saved.map((p) => p.file).sort()).toEqual(files);

    const third = await createMemory(options);
    expect(await third.info()).toMatchObject({ openedFrom: 'snapshot', replayed: 0, indexed: 2_600 });
    const fromSnapshot = await answers(third);
    await third.close();
    const records = await createMemory({ ...options, indexSnapshot: false });
    expect((await records.info()).openedFrom).toBe('records');
    // The access times rank the recalled memories higher a month on: the pages' documents hold them as the records do.
    expect(fromSnapshot).toEqual(await answers(records));
    await records.close();

    // A page with a new memory writes its vectors again (a new file); the other keeps its file.
    const fourth = await createMemory(options);
    await fourth.facts.add({ id: 'late', userId: 'ana', text: 'a fact written later' });
    await fourth.recall('fact number 5', { userId: 'ana', k: 5 });
    await fourth.close();
    const last = header().pages.sort((a, b) => a.page - b.page);
    expect(last[0]!.file).toBe(files.find((file) => file.startsWith('page:0:')));
    expect(last[1]!.file ?? last[1]!.key).not.toBe(files.find((file) => file.startsWith('page:1:')));
    expect(filesThere()).toEqual([last[0]!.file!, last[1]!.file ?? last[1]!.key].sort());
  });

  it('close() writes the image again only after a write: a read-only session leaves the file as it was', async () => {
    const directory = join(root, 'read-only');
    const image = () => statSync(join(directory, 'agent', 'image.v8'));
    const first = await open(directory);
    await first.facts.addMany(Array.from({ length: 50 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact number ${i}` })), { merge: false });
    await first.close();
    const written = image();

    // Reads only: recall without access times, get, list, info, export.
    const reader = await open(directory);
    expect((await reader.recall('fact number 7', { userId: 'ana', k: 3, touch: false }))[0]!.memory.id).toBe('f7');
    expect((await reader.facts.get('f3')).text).toBe('fact number 3');
    expect(await reader.facts.list({ userId: 'ana', limit: 100 })).toHaveLength(50);
    await reader.export();
    await reader.close();
    expect(image().ino).toBe(written.ino);
    expect(image().mtimeMs).toBe(written.mtimeMs);

    // A recall that records access times is a write: the image is written again, and holds it.
    const toucher = await open(directory);
    await toucher.recall('fact number 9', { userId: 'ana', k: 1 });
    await toucher.close();
    expect(image().ino).not.toBe(written.ino);
    const reopened = await open(directory);
    expect(await reopened.info()).toMatchObject({ openedFrom: 'snapshot', replayed: 0, indexed: 50 });
    expect((await reopened.facts.get('f9')).lastAccessedAt).toBeGreaterThan((await reopened.facts.get('f8')).lastAccessedAt);
    await reopened.close();
  });

  it('storing the image directly in fake-indexeddb gives what put gives: every row, every index, the key generator', async () => {
    const directory = join(root, 'varied');
    const memory = await open(directory);
    await memory.facts.addMany(Array.from({ length: 300 }, (_, i) => ({ userId: `u${i % 4}`, text: `fact ${i}`, tags: i % 3 ? ['a'] : ['a', 'b'], category: i % 2 ? 'preference' : 'goal' })), { merge: false });
    await memory.turns.addMany(Array.from({ length: 50 }, (_, i) => ({ userId: 'u1', sessionId: `s${i % 4}`, speaker: i % 2 ? 'user' : 'assistant', text: `turn ${i} last week` })));
    await memory.episodes.add({ userId: 'u1', goal: 'ship it', outcome: 'shipped', tags: ['work'] });
    // The same episode again: dedup replaces the first and records an event (the auto-increment store).
    await memory.episodes.add({ userId: 'u1', goal: 'ship it', outcome: 'shipped', tags: ['work'] });
    const task = await memory.tasks.start({ userId: 'u1', description: 'fix the build', type: 'debugging', context: { complexity: 'simple', domain: 'ci' } });
    task.log({ tool: 'read_file', action: 'read the log', parameters: {}, result: { kind: 'success', output: 'a missing file' }, latencyMs: 10 });
    await task.complete({ kind: 'success', verdict: 'restored the file' });
    await memory.close();
    const image = readImage(join(directory, 'agent', 'image.v8'))!;
    expect(image.stores.events!.length).toBeGreaterThan(0);

    const dumps: unknown[][] = [];
    for (const direct of [true, false]) {
      const indexedDB = new IDBFactory();
      await createSchema(indexedDB, 'agent');
      const { rowByRow } = await load(indexedDB, 'agent', structuredClone(image), [], { direct });
      // The installed fake-indexeddb has the internals bulk-load.ts builds: no table falls back to row by row (if an upgrade changes them, this says so).
      expect(rowByRow).toEqual(direct ? [] : Object.keys(image.stores).filter((table) => image.stores[table]!.length > 0));
      expect(treeFaults(indexedDB)).toEqual([]);
      const before = await dump(indexedDB);
      // The built trees take later writes as inserted ones do: puts that land before, between and after the loaded keys, overwrites, deletes.
      await writeAfterLoad(indexedDB);
      dumps.push([before, await dump(indexedDB)]);
      expect(treeFaults(indexedDB)).toEqual([]);
    }
    expect(dumps[0]).toEqual(dumps[1]);
  });

  it('an image whose rows break the store (a repeated primary key) is stored row by row, as put would, not bulk', async () => {
    const directory = join(root, 'repeated');
    const memory = await open(directory);
    await memory.facts.addMany(Array.from({ length: 20 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `fact ${i}` })), { merge: false });
    await memory.close();
    const image = readImage(join(directory, 'agent', 'image.v8'))!;
    const facts = image.stores.facts!;
    // The same id twice, the second row a later version of it: row by row, the later one wins, and the index holds it once.
    image.stores.facts = [...facts.slice(0, 5), { ...(facts[4] as object), text: 'the later version' }, ...facts.slice(5)];
    const indexedDB = new IDBFactory();
    await createSchema(indexedDB, 'agent');
    const { rowByRow } = await load(indexedDB, 'agent', image, []);
    expect(rowByRow).toEqual(['facts']);
    const dumped = (await dump(indexedDB)) as Record<string, { id: string; text: string }[]>;
    expect(dumped.facts!.length).toBe(20);
    expect(dumped.facts!.find((row) => row.id === (facts[4] as { id: string }).id)!.text).toBe('the later version');
    expect(treeFaults(indexedDB)).toEqual([]);
  });
});

/** Puts that fall before, between and after the loaded keys (and overwrite some), then deletes, in one transaction per store. */
async function writeAfterLoad(indexedDB: IDBFactory): Promise<void> {
  const idb = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open('agent');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const tx = idb.transaction(['facts', 'events'], 'readwrite');
  const facts = tx.objectStore('facts');
  const existing = await new Promise<{ id: string; userId: string; createdAt: number }[]>((resolve) => {
    const req = facts.getAll();
    req.onsuccess = () => resolve(req.result as { id: string; userId: string; createdAt: number }[]);
  });
  for (const id of ['0000', 'zzzz', `${existing[10]!.id}-between`]) facts.put({ ...existing[0], id, tags: ['c'], supersededBy: null });
  facts.put({ ...existing[20], tags: ['b', 'd'], supersededBy: existing[21]!.id });
  for (const row of existing.slice(30, 60)) facts.delete(row.id);
  tx.objectStore('events').add({ type: 'probe-after-load', userId: 'u', at: 1 });
  await new Promise<void>((resolve, reject) => ((tx.oncomplete = () => resolve()), (tx.onabort = () => reject(tx.error))));
  idb.close();
}

/**
 * fake-indexeddb's trees (the internals bulk-load.ts builds), each checked:
 * in order, red-black (no red node with a red child, one black height; a red
 * root is allowed, as fake-indexeddb's own inserts leave one), parents
 * right, size right.
 */
function treeFaults(indexedDB: IDBFactory): string[] {
  interface Node { record: unknown; left?: Node; right?: Node; parent?: Node; red: boolean; deleted: boolean }
  interface Tree { _root?: Node; _numNodes: number; _compare(a: unknown, b: unknown): number }
  const databases = (indexedDB as unknown as { _databases: Map<string, { rawObjectStores: Map<string, { records: { records: Tree }; rawIndexes: Map<string, { records: { records: Tree } }> }> }> })._databases;
  const faults: string[] = [];
  for (const store of databases.get('agent')!.rawObjectStores.values()) {
    const trees: [string, Tree][] = [['store', store.records.records], ...[...store.rawIndexes].map(([name, index]) => [name, index.records.records] as [string, Tree])];
    for (const [name, tree] of trees) {
      let count = 0;
      let previous: Node | undefined;
      const walk = (node: Node | undefined, parent: Node | undefined): number => {
        if (!node) return 1;
        if (node.parent !== parent) faults.push(`${name}: wrong parent`);
        if (node.red && (node.left?.red || node.right?.red)) faults.push(`${name}: red node with a red child`);
        const left = walk(node.left, node);
        count++;
        if (previous && tree._compare(previous.record, node.record) >= 0) faults.push(`${name}: out of order`);
        previous = node;
        const right = walk(node.right, node);
        if (left !== right) faults.push(`${name}: black heights ${left} and ${right}`);
        return left + (node.red ? 0 : 1);
      };
      walk(tree._root, undefined);
      if (count !== tree._numNodes) faults.push(`${name}: ${count} nodes, counted ${tree._numNodes}`);
    }
  }
  return faults;
}

/** Every store's rows and every index's order, and the key the events store generates next. */
async function dump(indexedDB: IDBFactory): Promise<unknown> {
  const idb = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open('agent');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const ask = <T>(req: IDBRequest): Promise<T> => new Promise((resolve, reject) => ((req.onsuccess = () => resolve(req.result as T)), (req.onerror = () => reject(req.error))));
  const out: Record<string, unknown> = {};
  for (const name of [...idb.objectStoreNames]) {
    const store = idb.transaction(name, 'readonly').objectStore(name);
    out[name] = await ask(store.getAll());
    for (const index of [...store.indexNames]) out[`${name}.${index}`] = await ask(store.index(index).getAllKeys());
  }
  out.nextEventSeq = await ask(idb.transaction('events', 'readwrite').objectStore('events').add({ type: 'probe', userId: 'u', at: 0 }));
  idb.close();
  return out;
}
