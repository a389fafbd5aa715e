import { IDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ValidationError, type Memory, type MemoryOptions, type RankingOptions } from '../../src/index.js';
import { EngramDatabase } from '../../src/store/database.js';
import { loadSnapshot, readSnapshot, saveSnapshot, SnapshotPages, type SnapshotPage, type SnapshotHeader } from '../../src/index-sync/index-snapshot.js';
import { unheldTerms } from '../../src/index-sync/unheld-terms.js';
import { buildFact } from '../../src/memories/facts/build-fact.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { SplitRows } from '../../src/search/simd/split-rows.js';
import { textFingerprint, textFingerprints } from '../../src/search/text-fingerprint.js';
import { docTermsAt, readTermLists, termListsOf } from '../../src/search/term-lists.js';
import { freshIndexedDB, openMemory, realEmbedder } from '../support/memory.js';
import { seededRandom } from '../support/seeded-random.js';
import { memoryFixture } from '../support/memory-fixture.js';
import { settledUntil, settleTasks, useFakeTimers } from '../support/fake-time.js';

/**
 * The persisted index snapshot (src/index-sync/index-snapshot.ts): a large store
 * opens from a few blocks instead of every record, and never from a snapshot
 * that misses a committed write.
 */
const memories = memoryFixture();
// Registered after the fixture, so real timers are back before it closes the memories (after-hooks run last first).
afterEach(() => {
  vi.useRealTimers();
});

function database(): Partial<MemoryOptions> {
  return { name: `snapshot-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
}

function openOn(db: Partial<MemoryOptions>, options: Partial<MemoryOptions> = {}): Promise<Memory> {
  return memories.open({ ...db, ...options });
}

async function closeIt(memory: Memory): Promise<void> {
  await memory.close();
}

/** Whether two payloads hold the same bytes (compared as buffers: toEqual walks a megabyte page byte by byte, for seconds). */
async function sameBytes(a: Blob, b: Blob): Promise<boolean> {
  return Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer()));
}

const VECTOR_ONLY: RankingOptions = { denseWeight: 1 };
// The last query asks about time, so the memories that say when ("last week") are boosted: a snapshot must keep which ones do.
const QUERIES = ['what does she like to eat', 'hiking in the mountains', 'the project deadline', 'zebra', 'music and guitars', 'when did she go hiking'];
const TOPICS = ['likes sushi and ramen', 'went hiking in the Alps last week', 'the project deadline moved to Friday', 'plays the guitar', 'adopted a cat named Miso'];

/** Recall results for every query, for both users: ids, and scores to 4 places (recency moves them a little between opens). */
async function answers(memory: Memory): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const userId of ['ana', 'ben']) {
    for (const query of QUERIES) {
      const hits = await memory.recall(query, { userId, k: 10, touch: false });
      out.push(hits.map((h) => [h.memory.id, Number(h.score.toFixed(4))]));
    }
  }
  return out;
}

async function seed(memory: Memory, count: number): Promise<void> {
  await memory.facts.addMany(
    Array.from({ length: count }, (_, i) => ({
      id: `f${i}`,
      userId: i % 3 === 0 ? 'ben' : 'ana',
      text: `${TOPICS[i % TOPICS.length]} (note ${i})`,
      importance: (i % 10) / 10,
      tags: i % 4 === 0 ? ['food'] : [],
    })),
  );
  await memory.episodes.add({ userId: 'ana', goal: 'plan a trip to Kyoto', outcome: 'booked a ryokan', lessons: 'book early' });
}

/** Relevance is the cosine alone, so scores can be compared to the last bit (no recency drift between opens). */
const COSINE_ONLY: RankingOptions = { denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } };

/** Full-precision recall results for every query and both users, with optional recall options. */
async function exactAnswers(memory: Memory, options: Record<string, unknown> = {}, k = 10): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const userId of ['ana', 'ben']) {
    for (const query of QUERIES) {
      const hits = await memory.recall(query, { userId, k, touch: false, ...options });
      out.push(hits.map((h) => [h.memory.id, h.score]));
    }
  }
  return out;
}

/** Facts and episodes with every kind of field a filter can read: categories, metadata, sessions, tags, participants, archived state. */
/** Opens `db` cosine-only from the snapshot and from the records, checking each came from where it should; what `collect` finds each way. */
async function bothWays(
  db: Partial<MemoryOptions>,
  collect: (memory: Memory) => Promise<unknown[]>,
  base: Partial<MemoryOptions> = { ranking: COSINE_ONLY },
): Promise<{ snapshot: unknown[]; records: unknown[] }> {
  const result = { snapshot: [] as unknown[], records: [] as unknown[] };
  for (const [name, options] of [
    ['snapshot', {}],
    ['records', { indexSnapshot: false }],
  ] as const) {
    const memory = await openOn(db, { ...base, ...options });
    expect((await memory.info()).openedFrom).toBe(name);
    result[name] = await collect(memory);
    await closeIt(memory);
  }
  return result;
}

async function seedVaried(memory: Memory, count: number): Promise<void> {
  const categories = ['profile', 'preference', 'goal', 'relationship', 'skill', 'other'] as const;
  await memory.facts.addMany(
    Array.from({ length: count }, (_, i) => ({
      id: `f${i}`,
      userId: i % 3 === 0 ? 'ben' : 'ana',
      text: `${TOPICS[i % TOPICS.length]} (note ${i})`,
      importance: (i % 10) / 10,
      tags: i % 4 === 0 ? ['food'] : i % 4 === 1 ? ['travel', 'food'] : [],
      category: categories[i % categories.length],
      sessionId: i % 5 === 0 ? `s${i % 15}` : null,
      metadata: i % 7 === 0 ? { mood: i % 2 ? 'happy' : 'calm', score: i % 11, nested: { deep: [i % 3] } } : {},
      createdAt: 1_700_000_000_000 + i * 60_000,
    })),
  );
  for (let i = 0; i < 40; i++) {
    await memory.episodes.add({
      id: `e${i}`,
      userId: i % 2 ? 'ana' : 'ben',
      goal: `${TOPICS[i % TOPICS.length]}: episode ${i}`,
      outcome: 'done',
      participants: i % 3 ? ['ana', 'carl'] : ['ben'],
      toolsUsed: i % 4 ? ['search'] : [],
      outcomeStatus: i % 5 ? 'success' : 'failure',
      tags: i % 2 ? ['trip'] : [],
      metadata: { project: i % 3 ? 'kyoto' : 'osaka' },
      state: i % 6 === 0 ? 'archived' : 'active',
    });
  }
}

/** The raw snapshot rows, through a second connection while no memory has the database open. */
async function rawSnapshot(db: Partial<MemoryOptions>, change?: (header: SnapshotHeader, blocks: SnapshotPage[]) => void): Promise<{ header: SnapshotHeader; blocks: SnapshotPage[] }> {
  const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
  try {
    const header = (await raw.snapshot.get('header')) as SnapshotHeader;
    const blocks = (await raw.snapshot.bulkGet(header.pages.map((b) => b.key))) as SnapshotPage[];
    if (change) {
      change(header, blocks);
      // The snapshot table is no indexed table: rewriting it leaves the write mark where it was.
      await raw.snapshot.bulkPut([header, ...blocks]);
    }
    return { header, blocks };
  } finally {
    raw.close();
  }
}

describe('index snapshot', () => {
  it('close saves it; the next open loads it and answers exactly as an open that reads every record', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 3000);
    // Changes after the first save: a delete, a text update, a pin, a retired fact.
    await first.facts.delete('f7');
    await first.facts.update('f8', { text: 'zebra stripes are unique' });
    await first.facts.update('f9', { pinned: true });
    expect((await first.info()).openedFrom).toBe('records');
    const before = await answers(first);
    await closeIt(first);

    // Hybrid (the default ranking) and vector-only (which skips the keyword pass), each from the snapshot and from the records.
    const result: Record<string, unknown[]> = {};
    for (const [name, options] of [
      ['hybrid', {}],
      ['vector', { ranking: VECTOR_ONLY }],
    ] as const) {
      const fromSnapshot = await openOn(db, options);
      expect(await fromSnapshot.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 3000 });
      result[`${name} from snapshot`] = await answers(fromSnapshot);
      await closeIt(fromSnapshot);
      const fromRecords = await openOn(db, { ...options, indexSnapshot: false });
      expect((await fromRecords.info()).openedFrom).toBe('records');
      result[`${name} from records`] = await answers(fromRecords);
      await closeIt(fromRecords);
    }
    expect(result['hybrid from snapshot']).toEqual(result['hybrid from records']);
    expect(result['vector from snapshot']).toEqual(result['vector from records']);
    expect(result['hybrid from snapshot']).toEqual(before);
    expect((before[3] as [string, number][])[0]![0]).toBe('f8');
  });

  it('after any seeded sequence of calls (adds, recalls that record access, updates, deletes, episodes, turns, lists) and close(), the next open loads the snapshot', async () => {
    const random = seededRandom(7);
    const stale: string[] = [];
    for (let round = 0; round < 12; round++) {
      const db = database();
      const memory = await openOn(db);
      const ops: string[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const r = random();
        if (r < 0.3) ids.push((await memory.facts.add({ userId: 'u', text: `fact ${round}-${i} about hiking ${i}` })).id), ops.push('add');
        else if (r < 0.5) await memory.recall('hiking', { userId: 'u' }), ops.push('recall');
        else if (r < 0.6 && ids.length) await memory.facts.update(ids[0]!, { pinned: true }), ops.push('update');
        else if (r < 0.7 && ids.length) await memory.facts.delete(ids.pop()!), ops.push('delete');
        else if (r < 0.8) await memory.episodes.add({ userId: 'u', goal: `goal ${i}`, outcome: 'done' }), ops.push('episode');
        else if (r < 0.9) await memory.observe({ userId: 'u', user: 'hi', assistant: 'hello' }), ops.push('observe');
        else await memory.facts.list({ userId: 'u' }), ops.push('list');
      }
      await closeIt(memory);
      const again = await openOn(db);
      const { openedFrom } = await again.info();
      if (openedFrom !== 'snapshot') stale.push(`${ops.join(', ')} -> ${openedFrom}`);
      await closeIt(again);
    }
    expect(stale).toEqual([]);
  });

  it('later changes are saved incrementally and a second reopen still matches the records', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 2500);
    await closeIt(first);

    const second = await openOn(db);
    expect((await second.info()).openedFrom).toBe('snapshot');
    await second.facts.add({ id: 'late', userId: 'ana', text: 'zebra crossing near the office' });
    await second.facts.delete('f0');
    await second.facts.update('f1', { text: 'zebra print jacket' });
    await closeIt(second);

    const third = await openOn(db);
    expect(await third.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 2501 });
    const viaSnapshot = await answers(third);
    await closeIt(third);
    const viaRecords = await answers(await openOn(db, { indexSnapshot: false }));
    expect(viaSnapshot).toEqual(viaRecords);
  });

  it('writes the snapshot missed (the tab died before saving) are replayed onto it: the next open answers as one that reads every record', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 300);
    await closeIt(first);

    // This engine never gets to save: a huge delay and no close() before the next open. Every kind of write it can make:
    const dying = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    await dying.facts.add({ id: 'unsaved', userId: 'ana', text: 'zebra crossing near the office' });
    await dying.facts.delete('f0');
    await dying.facts.update('f1', { text: 'zebra print jacket', pinned: true });
    await dying.facts.addMany([{ id: 'f-new', userId: 'ben', text: 'went hiking in the Dolomites last week' }]);
    await dying.turns.add({ id: 't1', userId: 'ana', speaker: 'Ana', text: 'I play guitar in a jazz band' });
    await dying.episodes.add({ id: 'e-late', userId: 'ben', goal: 'learn the guitar', outcome: 'bought one' });
    await dying.recall('zebra', { userId: 'ana' }); // an access-time write
    // A fact added alone (its vector in a block of its own), then deleted: the block is deleted, and the log says whose it was.
    await dying.facts.add({ id: 'x1', userId: 'ana', text: 'orders green curry every friday' });
    await dying.facts.delete('x1');

    const next = await openOn(db);
    // 300 facts and an episode, then one fact added, one deleted, one more added, a turn and an episode (x1 came and went).
    expect(await next.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 304 });
    expect((await next.info()).replayed).toBeGreaterThanOrEqual(8); // unsaved, f0, f1, f-new, t1, e-late, x1 and the recalled ones
    const replayed = await answers(next);
    expect((await next.recall('zebra crossing', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('unsaved');
    const fromRecords = await openOn(db, { indexSnapshot: false });
    expect((await fromRecords.info()).openedFrom).toBe('records');
    expect(replayed).toEqual(await answers(fromRecords));
    await closeIt(fromRecords);

    // Its save brings the snapshot to the store and empties the log: the open after it replays nothing.
    await closeIt(next);
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    expect(await raw.indexLog.count()).toBe(0);
    raw.close();
    const after = await openOn(db);
    expect(await after.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 304, replayed: 0 });
    expect(await answers(after)).toEqual(replayed);
  });

  it('a killed session that only recalled and pinned (access times, no new texts) is replayed as field changes: the next open answers as a records open', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 400);
    await closeIt(first);

    const dying = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    for (let i = 0; i < 30; i++) await dying.recall(QUERIES[i % QUERIES.length]!, { userId: i % 2 ? 'ana' : 'ben', k: 10 });
    await dying.facts.update('f7', { pinned: true, importance: 0.9 });
    await dying.idle();

    const next = await openOn(db);
    const { replayed } = await next.info();
    // Every memory those recalls touched, and the pinned one.
    expect(replayed).toBeGreaterThan(30);
    expect(await next.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 401 });
    const fromSnapshot = await answers(next);
    expect((await next.facts.get('f7')).pinned).toBe(true);
    const fromRecords = await openOn(db, { indexSnapshot: false });
    expect((await fromRecords.info()).openedFrom).toBe('records');
    expect(fromSnapshot).toEqual(await answers(fromRecords));
  });

  it('a save after recalls and pins alone writes the pages’ documents again over their stored payloads: the next open answers as a records open', async () => {
    const db = database();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => now;
    const first = await openOn(db, { clock });
    await seed(first, 2500);
    await closeIt(first);
    const before = await rawSnapshot(db);

    // A month later the recalled memories rank higher (recency from their access): the saved documents must say so.
    now += 30 * 86_400_000;
    const second = await openOn(db, { clock });
    for (let i = 0; i < 12; i++) await second.recall(QUERIES[i % QUERIES.length]!, { userId: i % 2 ? 'ana' : 'ben', k: 25 });
    await second.facts.update('f2400', { pinned: true });
    await closeIt(second);
    const after = await rawSnapshot(db);
    // Every page saved again under a new key, with the stored page's vectors, terms and fingerprints.
    expect(after.header.pages.map((p) => p.key).filter((key) => before.header.pages.some((b) => b.key === key))).toEqual([]);
    for (const page of after.blocks) {
      const was = before.blocks.find((b) => b.page === page.page)!;
      expect(page.terms).toEqual(was.terms);
      expect(page.fingerprints).toEqual(was.fingerprints);
      expect(await sameBytes(page.payload as Blob, was.payload as Blob)).toBe(true);
      expect(page.docs).not.toEqual(was.docs);
    }

    const next = await openOn(db, { clock });
    expect(await next.info()).toMatchObject({ openedFrom: 'snapshot', replayed: 0, indexed: 2501 });
    const fromRecords = await openOn(db, { clock, indexSnapshot: false });
    expect(await answers(next)).toEqual(await answers(fromRecords));
  });

  it('an engine does not merge its pages into a snapshot another engine saved from its own rebuild (another layout)', async () => {
    const db = database();
    const first = await openOn(db);
    // Two pages: a rebuild reads the records in id order, not in the order they were written, so its pages differ.
    await seed(first, 2500);
    await closeIt(first);

    const a = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    await a.facts.add({ id: 'from-a', userId: 'ana', text: 'zebra crossing near the office' });
    // An engine that does not read the log (an older version) sees a stale snapshot, rebuilds and saves its own layout.
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    await raw.indexLog.clear();
    const b = await openOn(db);
    expect((await b.info()).openedFrom).toBe('records');
    await closeIt(b);
    // A saves at the same mark: its few dirty pages must not be stitched into b's pages.
    await closeIt(a);
    expect(await raw.indexLog.count()).toBe(0);
    raw.close();

    const next = await openOn(db);
    expect(await next.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 2502 });
    const fromRecords = await openOn(db, { indexSnapshot: false });
    expect(await answers(next)).toEqual(await answers(fromRecords));
  });

  it('a write the log does not hold (an engine that keeps no snapshot, so no log) makes the next open read the records', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 200);
    await closeIt(first);

    const logged = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    await logged.facts.add({ id: 'logged', userId: 'ana', text: 'likes green tea' });
    const unlogged = await openOn(db, { indexSnapshot: false });
    await unlogged.facts.add({ id: 'unsaved', userId: 'ana', text: 'zebra crossing near the office' });
    await logged.facts.add({ id: 'logged-2', userId: 'ana', text: 'likes black tea' });

    const next = await openOn(db);
    expect(await next.info()).toMatchObject({ openedFrom: 'records', indexed: 204 });
    expect((await next.recall('zebra crossing', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('unsaved');
  });

  it('an engine that another engine wrote behind does not save a snapshot that misses that write', async () => {
    const db = database();
    const a = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    const b = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    await b.facts.add({ id: 'from-b', userId: 'ana', text: 'zebra crossing near the office' });
    await a.facts.add({ id: 'from-a', userId: 'ana', text: 'likes green tea' });
    await closeIt(a);
    await closeIt(b);

    const next = await openOn(db);
    expect(await next.info()).toMatchObject({ indexed: 2 });
    const ids = (await next.recall('zebra crossing green tea', { userId: 'ana', k: 5 })).map((h) => h.memory.id).sort();
    expect(ids).toEqual(['from-a', 'from-b']);
  });

  it('saves on its own after a quiet period, without close()', async () => {
    const db = database();
    const writer = await openOn(db, { indexSnapshot: { saveDelayMs: 20 } });
    // The engine's timers on a fake clock: the quiet period passes only when this test moves it.
    useFakeTimers();
    await seed(writer, 100);
    // Watch the store itself (a second connection to the same database) for the snapshot's header.
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    await settleTasks();
    expect(await raw.snapshot.get('header')).toBeUndefined();
    // The save delay, then the 50 ms pause a save's pages wait for after the last call: saved, with no call and no close().
    await vi.advanceTimersByTimeAsync(20 + 50);
    expect(await settledUntil(async () => (await raw.snapshot.get('header')) !== undefined)).toBe(true);
    raw.close();
    vi.useRealTimers();
    expect(await (await openOn(db)).info()).toMatchObject({ openedFrom: 'snapshot', indexed: 101 });
  });

  it('a save waits for the save delay after the last change, not the first', async () => {
    const db = database();
    const delay = 100;
    const writer = await openOn(db, { indexSnapshot: { saveDelayMs: delay } });
    // The engine's timers on a fake clock: the seed's changes and those below are apart only as far as the test moves it.
    useFakeTimers();
    await seed(writer, 20);
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    // A change every half delay, for four delays: never a pause as long as the delay, so no save.
    for (let i = 0; i < 8; i++) {
      await writer.facts.update(`f${i}`, { pinned: true });
      await vi.advanceTimersByTimeAsync(delay / 2);
      await settleTasks();
    }
    expect(await raw.snapshot.get('header')).toBeUndefined();
    // The last change is a half delay ago: one more half delay, then the 50 ms pause a save's pages wait for, and it is saved.
    await vi.advanceTimersByTimeAsync(delay / 2 + 50);
    expect(await settledUntil(async () => (await raw.snapshot.get('header')) !== undefined)).toBe(true);
    raw.close();
  });

  it('a save in progress waits while calls come back to back, and goes on once they pause', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 5000);
    await closeIt(first);
    const memory = await openOn(db, { indexSnapshot: { saveDelayMs: 10 } });
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    const named = async () => new Set(((await raw.snapshot.get('header')) as SnapshotHeader).pages.map((p) => p.key));
    const before = await named();
    expect(before.size).toBe(3);
    // A change in each of the three pages: the next save rewrites all of them, one per task.
    // The engine's timers on a fake clock: calls are back to back as long as it stands still.
    useFakeTimers();
    for (const id of ['f1', 'f2100', 'f4200']) await memory.facts.update(id, { pinned: true });
    // The moment the save writes its first page, recalls start coming back to back (the clock stands still
    // between them), each followed by every task the save could run in.
    let burst: Promise<void> | undefined;
    const backToBack = async () => {
      for (let recalls = 0; recalls < 25; recalls++) {
        await memory.recall(QUERIES[recalls % QUERIES.length]!, { userId: 'ana', k: 5, touch: false });
        await settleTasks();
      }
    };
    const realPut = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'snapshot' && !burst && String((args[0] as { key?: unknown }).key).startsWith('page:')) burst = backToBack();
      return realPut.apply(this, args);
    } as IDBObjectStore['put'];
    try {
      // The save delay and the pause its pages wait for pass, until the save writes its first page.
      for (let waited = 0; !burst && waited < 1000; waited += 10) {
        await vi.advanceTimersByTimeAsync(10);
        await settleTasks();
      }
      expect(burst).toBeDefined();
      await burst;
    } finally {
      IDBObjectStore.prototype.put = realPut;
    }
    // The save waited: the header still names the pages it had (without the pacing it finished within the burst).
    expect(await named()).toEqual(before);
    // Calls paused for the 50 ms it waits for: it goes on and commits.
    await vi.advanceTimersByTimeAsync(50);
    expect(await settledUntil(async () => [...(await named())].every((key) => !before.has(key)))).toBe(true);
    vi.useRealTimers();
    raw.close();
    await closeIt(memory);
    const again = await openOn(db);
    expect(await again.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 5001 });
  });

  it('indexSnapshot: false saves none', async () => {
    const db = database();
    const first = await openOn(db, { indexSnapshot: false });
    await seed(first, 50);
    await closeIt(first);
    expect((await (await openOn(db)).info()).openedFrom).toBe('records');
  });

  it('info().vectorBytes is the memory the vectors hold: at most 1.07x the raw f32 vectors at 10k memories (128-d), reopened from the snapshot too', async () => {
    const db = database();
    const first = await openOn(db);
    const dimension = (await first.info()).embedder.dimension;
    const random = seededRandom(31);
    const n = 10_000;
    await first.facts.addMany(
      Array.from({ length: n }, (_, i) => ({ userId: 'ana', text: `memory ${i}`, embedding: Float32Array.from({ length: dimension }, () => random() - 0.5) })),
      { merge: false },
    );
    const raw = n * dimension * 4;
    const grown = (await first.info()).vectorBytes;
    // Rows are stored once (split halves) plus 20 bytes of metadata and scratch a row, in blocks of 2,048 (10,176 rows here).
    expect(grown).toBeGreaterThanOrEqual(10_176 * (dimension * 4 + 20));
    expect(grown / raw).toBeLessThan(1.07); // 20 bytes of 512, 176 spare rows, a 64 KiB page
    await closeIt(first);
    const reopened = await openOn(db);
    expect((await reopened.info()).openedFrom).toBe('snapshot');
    expect((await reopened.info()).vectorBytes).toBe(grown);
  });

  it('keeps the bounds metadata next to the vectors: restored, it gives the same ids and bit-identical scores as one recomputed from the records', async () => {
    const db = database();
    const first = await openOn(db, { ranking: COSINE_ONLY });
    await seedVaried(first, 4500);
    await closeIt(first);

    const { header, blocks } = await rawSnapshot(db);
    expect(header.pages.length).toBe(3);
    const dimension = header.embedder.dimension;
    for (const block of blocks) {
      // The payload holds the vectors, then each row's metadata (its norm and its low halves' norm).
      expect(block.quantized?.layout).toBe(SplitRows.layoutOf(dimension));
      expect((block.payload as Blob).size).toBe(block.docs.ids.length * (dimension * 4 + SplitRows.metadataBytes));
    }

    const result = await bothWays(db, async (memory) => [...(await exactAnswers(memory)), ...(await exactAnswers(memory, {}, 60))]);
    expect(result.snapshot).toEqual(result.records);

    // A snapshot whose blocks carry no metadata (or metadata of another layout, as an older engram's int8 copy) still opens from the snapshot and computes it.
    await rawSnapshot(db, (_, rows) => {
      rows[0]!.quantized = null;
      rows[0]!.payload = (rows[0]!.payload as Blob).slice(0, rows[0]!.docs.ids.length * dimension * 4);
      rows[1]!.quantized!.layout = 'int8-rowscale-v1/128+16';
    });
    const recomputed = await openOn(db, { ranking: COSINE_ONLY });
    expect((await recomputed.info()).openedFrom).toBe('snapshot');
    expect([...(await exactAnswers(recomputed)), ...(await exactAnswers(recomputed, {}, 60))]).toEqual(result.records);
  });

  it('filters, tags, types, time ranges and fields match after a snapshot open exactly as after a records open', async () => {
    const db = database();
    const first = await openOn(db);
    await seedVaried(first, 2500);
    await closeIt(first);

    const filters: Record<string, unknown>[] = [
      { tags: ['food'] },
      { tags: ['travel', 'trip'] },
      { types: ['episode'] },
      { types: ['episode'], includeArchived: true },
      { since: 1_700_000_000_000 + 500 * 60_000, until: 1_700_000_000_000 + 1500 * 60_000 },
      { filter: { category: 'preference' } },
      { filter: { category: ['goal', 'skill'], source: 'manual' } },
      { filter: { sessionId: 's5' } },
      { filter: { mood: 'happy' } },
      { filter: { score: 3 } },
      { filter: { participants: 'carl' }, includeArchived: true },
      { filter: { project: 'kyoto', outcomeStatus: 'failure' } },
      { filter: { project: 'osaka' }, includeArchived: true },
      { filter: { state: 'archived' }, includeArchived: true },
    ];
    const result = await bothWays(db, async (memory) => {
      const perFilter: unknown[] = [];
      for (const filter of filters) perFilter.push(await exactAnswers(memory, filter, 20));
      return perFilter;
    });
    expect(result.snapshot).toEqual(result.records);
    // The filters did select something (and not everything).
    const counts = (result.records as unknown[][][]).map((perQuery) => perQuery.reduce((n, hits) => n + hits.length, 0));
    expect(counts.map((n, i) => (n > 0 ? 'some' : filters[i]))).toEqual(filters.map(() => 'some'));
  });

  it('a snapshot of an older format, or with a block that does not fit together, is ignored: the open reads the records and saves a new one', async () => {
    const db = database();
    const first = await openOn(db, { ranking: COSINE_ONLY });
    await seedVaried(first, 2500);
    const { indexed } = await first.info();
    const want = await exactAnswers(first);
    await closeIt(first);

    const damages: ((header: SnapshotHeader, blocks: SnapshotPage[]) => void)[] = [
      (header) => (header.format = 1),
      (_, blocks) => (blocks[1]!.payload = (blocks[1]!.payload as Blob).slice(0, 400)),
      (_, blocks) => (blocks[0]!.payload = new Uint8Array(8) as never),
      (_, blocks) => (blocks[1]!.quantized = null),
      (_, blocks) => (blocks[0]!.fingerprints = blocks[0]!.fingerprints.slice(1)),
      // Term lists of another tokenizer version (this engram cannot build postings from them, and the page has no texts).
      (_, blocks) => (blocks[1]!.terms.version += 1),
      (_, blocks) => delete (blocks[0] as Partial<SnapshotPage>).terms,
      (_, blocks) => (blocks[1]!.docs.createdAt = new Float64Array(3)),
    ];
    for (const damage of damages) {
      await rawSnapshot(db, damage);
      const memory = await openOn(db, { ranking: COSINE_ONLY });
      expect(await memory.info()).toMatchObject({ openedFrom: 'records', indexed });
      expect(await exactAnswers(memory)).toEqual(want);
      await closeIt(memory);
      // Closing saved a fresh snapshot, which the next open uses.
      const again = await openOn(db, { ranking: COSINE_ONLY });
      expect(await again.info()).toMatchObject({ openedFrom: 'snapshot', indexed });
      expect(await exactAnswers(again)).toEqual(want);
      await closeIt(again);
    }
  });

  it("keeps each page's index terms and text fingerprints, not its texts: keyword answers match a records open, from the snapshot and after a save", async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 5000);
    await closeIt(first);
    const { blocks } = await rawSnapshot(db);
    expect(blocks.length).toBeGreaterThan(2);
    for (const block of blocks) {
      expect(Object.keys(block)).not.toContain('texts');
      expect(block.terms.start.length).toBe(block.docs.ids.length + 1);
      expect(block.fingerprints.length).toBe(block.docs.ids.length);
    }
    const recordsOpen = await openOn(db, { indexSnapshot: false });
    const viaRecords = await answers(recordsOpen);
    await closeIt(recordsOpen);
    const second = await openOn(db);
    expect(await second.info()).toMatchObject({ openedFrom: 'snapshot', indexed: 5001 });
    expect(await answers(second)).toEqual(viaRecords);
    // A write to a page loaded without texts: the save reads that page's texts from the records.
    await second.facts.update('f7', { importance: 0.95 });
    await closeIt(second);
    const third = await openOn(db);
    expect(await third.info()).toMatchObject({ openedFrom: 'snapshot', replayed: 0 });
    expect((await answers(third)).length).toBe(viaRecords.length);
    const { blocks: after } = await rawSnapshot(db);
    const rewritten = after.find((b) => b.docs.ids.includes('f7'))!;
    expect(rewritten.key).not.toBe(blocks.find((b) => b.docs.ids.includes('f7'))!.key);
    expect(rewritten.terms).toEqual(blocks.find((b) => b.docs.ids.includes('f7'))!.terms);
    expect(rewritten.fingerprints).toEqual(blocks.find((b) => b.docs.ids.includes('f7'))!.fingerprints);
  });

  it("a save takes an unchanged memory's terms from the stored page, not its record; a changed or foreign one from its record, and none when the record's text is not the indexed one", async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 3000);
    await closeIt(first);
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    await raw.open();
    const embedder = await realEmbedder();
    const index = new MemoryIndex(embedder.dimension);
    const { pages } = await loadSnapshot(raw, { id: embedder.id, dimension: embedder.dimension }, index);
    const page = pages![1]!;
    const ids = page.ids.slice(0, 300);
    expect(ids.map((id) => index.text(id))).toEqual(ids.map(() => undefined));
    const termsOf = (text: string) => docTermsAt(readTermLists(termListsOf([text]), 1)!, 0);
    const texts = new Map((await raw.facts.bulkGet(ids)).map((f) => [f!.id, f!.text]));
    const reads = vi.spyOn(raw.facts, 'bulkGet');
    const source = unheldTerms(raw, index);
    // From the stored page: every id, no record read.
    const stored = await source(ids, page.page);
    expect(reads).not.toHaveBeenCalled();
    expect(ids.map((id) => stored.get(id))).toEqual(ids.map((id) => termsOf(texts.get(id)!)));
    // Asked under another page (a save of another layout): from the records, in one read, the same terms.
    const other = pages![0]!.page;
    expect(await source(ids, other)).toEqual(stored);
    expect(reads).toHaveBeenCalledTimes(1);
    // A record rewritten behind the index's back (a write not applied yet) is left out: the page is not saved from it.
    await raw.facts.update(ids[0]!, { text: 'rewritten meanwhile' });
    const partial = await source(ids, other);
    expect([partial.has(ids[0]!), partial.size]).toEqual([false, ids.length - 1]);
    reads.mockRestore();
    raw.close();
  });

  it('memories opened from the snapshot keep no text in memory: later writes and saves read their texts from the records, and every open answers as a records open does', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 3000);
    await closeIt(first);
    const second = await openOn(db);
    expect(await second.info()).toMatchObject({ openedFrom: 'snapshot' });
    // On memories loaded from pages: metadata writes (no new vector: the index compares the text's fingerprint), a new
    // text (re-embedded), a deletion, a new memory in the same page's range, and recalls that write access times.
    await second.facts.update('f1', { pinned: true, importance: 1, tags: ['moved'] });
    await second.facts.update('f2', { text: 'plays the cello on Sundays (note 2)' });
    await second.facts.update('f3', { category: 'skill' });
    await second.facts.delete('f4');
    await second.facts.add({ id: 'late', userId: 'ana', text: 'adopted a second cat named Tofu' });
    for (const query of QUERIES) await second.recall(query, { userId: 'ana', k: 5 });
    const during = await answers(second);
    await closeIt(second);

    // The pages written again hold the records' texts' term lists and fingerprints.
    const { blocks } = await rawSnapshot(db);
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    const all = new Map([...(await raw.facts.toArray()), ...(await raw.episodes.toArray())].map((r) => [r.id, r.text]));
    raw.close();
    expect(all.get('f2')).toBe('plays the cello on Sundays (note 2)');
    for (const block of blocks) {
      const texts = block.docs.ids.map((id) => all.get(id)!);
      expect(block.fingerprints).toEqual(textFingerprints(texts));
      expect(block.terms).toEqual(termListsOf(texts));
    }
    expect(blocks.flatMap((b) => b.docs.ids)).not.toContain('f4');
    expect(blocks.flatMap((b) => b.docs.ids)).toContain('late');
    const check = await openOn(db, { indexSnapshot: false });
    const viaRecords = await answers(check);
    await closeIt(check);
    const third = await openOn(db);
    expect(await third.info()).toMatchObject({ openedFrom: 'snapshot', replayed: 0 });
    expect(await answers(third)).toEqual(viaRecords);
    expect(during).toEqual(viaRecords);
    const cello = await third.recall('cello', { userId: 'ana', k: 3, touch: false });
    expect(cello[0]?.memory.id).toBe('f2');
    expect(cello[0]?.parts.keyword).toBeGreaterThan(0);
    const moved = await third.recall('guitar', { userId: 'ana', k: 3, touch: false, tags: ['moved'] });
    expect(moved.map((h) => h.memory.id)).toEqual(['f1']);
  });

  it('texts, ids and tags of any UTF-16 (lone surrogates, NUL, emoji, newlines in texts) come back from a snapshot open exactly as from the records', async () => {
    const db = database();
    const first = await openOn(db, { ranking: COSINE_ONLY });
    await seed(first, 2100);
    const odd = ['half \uD83C pair', '\uDF89 trailing', 'nul\u0000inside', 'emoji 🎉 and çà', 'line\nbreak', ''.padEnd(300, '\uD800')];
    await first.facts.addMany(odd.map((text, i) => ({ id: `odd-${i}-\uDC01`, userId: 'ana', text: `${text} unusual`, tags: [`tag\uD800${i}`] })));
    await closeIt(first);

    // The default (hybrid) ranking: the keyword part reads the snapshot's texts.
    const result = await bothWays(
      db,
      async (memory) => {
        const hits = await memory.recall('unusual', { userId: 'ana', k: 20, touch: false });
        const tagged = await memory.recall('unusual', { userId: 'ana', k: 10, touch: false, tags: ['tag\uD8003'] });
        // (Scores to 4 places: recency moves with the clock between the two opens.)
        return [hits.map((h) => [h.memory.id, Number(h.score.toFixed(4)), h.parts.keyword]), tagged.map((h) => h.memory.id)];
      },
      {},
    );
    expect(result.snapshot).toEqual(result.records);
    const [hits, tagged] = result.snapshot as [[string, number, number][], string[]];
    expect(hits.filter(([, , keyword]) => keyword > 0).map(([id]) => id).sort()).toEqual(odd.map((_, i) => `odd-${i}-\uDC01`).sort());
    expect(tagged).toEqual(['odd-3-\uDC01']);
  });

  it("a deleted memory leaves the snapshot's pages within moments, not after the usual 2 s of quiet", async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 300);
    await closeIt(first);
    // (Read while the engine may be saving: a page row its save just swept reads as undefined, and holds nothing.)
    const pagesHold = async (text: string) => (await rawSnapshot(db)).blocks.some((page) => page?.fingerprints.includes(textFingerprint(`likes sushi and ramen ${text}`)));
    expect(await pagesHold('(note 5)')).toBe(true);

    const memory = await openOn(db);
    useFakeTimers();
    await memory.facts.delete('f5');
    await memory.facts.update('f6', { text: 'the user moved to Porto' });
    // A removal is saved after 50 ms of quiet (other changes wait for the usual 2 s), and its pages after the
    // 50 ms pause they wait for: gone once 100 ms have passed on the engine's (fake) clock.
    await settleTasks();
    expect(await pagesHold('(note 5)')).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settledUntil(async () => !(await pagesHold('(note 5)')))).toBe(true);
    vi.useRealTimers();
    expect((await rawSnapshot(db)).blocks.flatMap((page) => page?.docs.ids ?? [])).not.toContain('f5');
    await closeIt(memory);
  });

  it('a store written more often than the save delay is still saved while the writes go on: at the latest ten delays after the first unsaved change', async () => {
    const db = database();
    const options = { indexSnapshot: { saveDelayMs: 100 } };
    const first = await openOn(db, options);
    await seed(first, 60);
    await closeIt(first);
    const before = (await rawSnapshot(db)).header.mark;
    const memory = await openOn(db, options);
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    // A write every 65 ms of the engine's (fake) clock: never the 100 ms pause the save delay waits for, but pauses of
    // the 50 ms a save steps in.
    useFakeTimers();
    let savedAfter: number | undefined;
    for (let i = 0; savedAfter === undefined && i < 100; i++) {
      if ((((await raw.snapshot.get('header')) as SnapshotHeader).mark ?? before) !== before) savedAfter = i * 65;
      await memory.facts.update(`f${i % 60}`, { importance: ((i % 9) + 1) / 10 });
      await vi.advanceTimersByTimeAsync(65);
      await settleTasks();
    }
    raw.close();
    vi.useRealTimers();
    // Not by the debounce (no pause was long enough): by the ten delays since the first unsaved change, in the
    // first pause of the writes after them.
    expect(savedAfter).toBeGreaterThan(10 * 100);
    expect(savedAfter).toBeLessThanOrEqual(10 * 100 + 3 * 65);
    await closeIt(memory);
    const reopened = await openOn(db, options);
    expect((await reopened.info()).openedFrom).toBe('snapshot');
    await closeIt(reopened);
  });

  it('rejects a bad option with a typed error', async () => {
    await expect(openMemory({ ...database(), indexSnapshot: { saveDelayMs: -1 } })).rejects.toBeInstanceOf(ValidationError);
    await expect(openMemory({ ...database(), indexSnapshot: true as never })).rejects.toBeInstanceOf(ValidationError);
  });

  it('a save whose captured state is behind the store writes nothing and keeps its blocks dirty', async () => {
    const { indexedDB, IDBKeyRange } = freshIndexedDB();
    const db = new EngramDatabase('snapshot-race', { indexedDB, IDBKeyRange });
    await db.open();
    const embedder = await realEmbedder();
    const index = new MemoryIndex(embedder.dimension);
    const blocks = new SnapshotPages();
    index.reportChangesTo(blocks);
    const [vector] = await embedder.embed(['hello']);
    index.upsert({
      doc: { id: 'x', userId: 'u', kind: 'fact', createdAt: 0, touchedAt: 0, tags: [], importance: 0.5, pinned: false, archived: false, times: [], fields: {} },
      text: 'hello',
      vector: vector!,
    });
    // The index mirrors the records: x's holds the text it was indexed with (the first save lets the index's copy go,
    // so the second reads it from there).
    await db.facts.put({ id: 'x', text: 'hello' } as never);
    // A write commits (moving the mark) after the state was captured.
    await db.facts.put({ id: 'y' } as never);
    const stamp = { id: embedder.id, dimension: embedder.dimension };
    expect(await saveSnapshot(db, index, blocks, stamp, 'the-mark-before-that-write')).toBe(false);
    expect(await db.snapshot.count()).toBe(0);
    expect(blocks.hasChanges).toBe(true);
    expect(await saveSnapshot(db, index, blocks, stamp, db.writeMark.committed)).toBe(true);
    expect(await db.snapshot.count()).toBe(2);
    db.close();
  });

  it('a page saved for its documents alone is re-encoded from the stored row, and does not commit if another save replaced that row meanwhile', async () => {
    const { indexedDB, IDBKeyRange } = freshIndexedDB();
    const db = new EngramDatabase('snapshot-reencode-race', { indexedDB, IDBKeyRange });
    await db.open();
    const embedder = await realEmbedder();
    const index = new MemoryIndex(embedder.dimension);
    const pages = new SnapshotPages();
    index.reportChangesTo(pages);
    const random = seededRandom(9);
    const doc = (i: number, touchedAt = i) => ({ id: `m${i}`, userId: 'u', kind: 'fact' as const, createdAt: i, touchedAt, tags: [], importance: 0.5, pinned: false, archived: false, times: [], fields: {} });
    for (let i = 0; i < 100; i++) index.upsert({ doc: doc(i), text: `note ${i}`, vector: Float32Array.from({ length: embedder.dimension }, () => random() - 0.5) });
    const stamp = { id: embedder.id, dimension: embedder.dimension };
    const readTerms = unheldTerms(db, index);
    expect(await saveSnapshot(db, index, pages, stamp, db.writeMark.committed, null, undefined, readTerms)).toBe(true);
    const first = (await db.snapshot.get('header')) as SnapshotHeader;
    const source = (await db.snapshot.get(first.pages[0]!.key)) as SnapshotPage;

    // An access time: the page's documents alone changed.
    index.updateDoc(doc(7, 1_000));
    const taken = pages.takeDirty();
    expect(taken.map(({ page, fieldsOnly }) => ({ page, fieldsOnly }))).toEqual([{ page: 0, fieldsOnly: true }]);
    pages.undo(taken);
    // Another save (same layout) replaces the page's row while this one re-encodes from it.
    let replaced = false;
    const raced = await saveSnapshot(db, index, pages, stamp, db.writeMark.committed, null, async () => {
      if (replaced) return;
      replaced = true;
      await db.snapshot.bulkPut([{ ...source, key: 'page:0:other' }, { ...first, pages: [{ page: 0, key: 'page:0:other' }] }]);
      await db.snapshot.delete(source.key);
    }, readTerms);
    expect(replaced).toBe(true);
    expect(raced).toBe(false);
    expect(((await db.snapshot.get('header')) as SnapshotHeader).pages).toEqual([{ page: 0, key: 'page:0:other' }]);
    expect(pages.hasChanges).toBe(true);

    // The next save re-encodes from the row the header names now: its payload and terms, the new document.
    expect(await saveSnapshot(db, index, pages, stamp, db.writeMark.committed, null, undefined, readTerms)).toBe(true);
    const header = (await db.snapshot.get('header')) as SnapshotHeader;
    const saved = (await db.snapshot.get(header.pages[0]!.key)) as SnapshotPage;
    expect(header.pages[0]!.key).not.toBe('page:0:other');
    expect(saved.terms).toEqual(source.terms);
    expect(await sameBytes(saved.payload as Blob, source.payload as Blob)).toBe(true);
    expect(saved.docs).not.toEqual(source.docs);
    // What is loaded back holds the new access time.
    const reopened = new MemoryIndex(embedder.dimension);
    expect((await loadSnapshot(db, stamp, reopened)).pages).toBeDefined();
    expect(reopened.doc('m7')!.touchedAt).toBe(1_000);
    expect(reopened.doc('m8')!.touchedAt).toBe(8);
    db.close();
  });

  it('a write that commits while a save is between the steps of a page stays in the log: the save commits at the mark it began at, and the next open replays the write', async () => {
    const { indexedDB, IDBKeyRange } = freshIndexedDB();
    const db = new EngramDatabase('snapshot-race-steps', { indexedDB, IDBKeyRange });
    await db.open();
    const embedder = await realEmbedder();
    const index = new MemoryIndex(embedder.dimension);
    const blocks = new SnapshotPages();
    index.reportChangesTo(blocks);
    const random = seededRandom(5);
    // More memories than one step of a page's encoding (512), so the save pauses inside the page.
    for (let i = 0; i < 1200; i++) {
      index.upsert({
        doc: { id: `m${i}`, userId: 'u', kind: 'fact', createdAt: i, touchedAt: i, tags: [], importance: 0.5, pinned: false, archived: false, times: [], fields: {} },
        text: `note ${i}`,
        vector: Float32Array.from({ length: embedder.dimension }, () => random() - 0.5),
      });
    }
    // A write before the save: the log's row for it goes once the snapshot is past it.
    await db.facts.put(buildFact({ userId: 'default', text: 'before the save', id: 'before' }, 1));
    const began = db.writeMark.committed;
    const stamp = { id: embedder.id, dimension: embedder.dimension };
    let paces = 0;
    const saved = await saveSnapshot(db, index, blocks, stamp, began, null, async () => {
      // Mid-page: a write commits (another engine's, or this one's own).
      if (++paces === 1) await db.facts.put(buildFact({ userId: 'default', text: 'written during the save', id: 'during' }, 2));
    });
    expect(paces).toBeGreaterThan(1);
    expect(db.writeMark.committed).not.toBe(began);
    expect(saved).toBe(true);
    const header = (await db.snapshot.get('header')) as SnapshotHeader;
    expect(header.mark).toBe(began);
    // Only the write since the snapshot's mark is left to replay, and the next open finds it.
    const log = await db.indexLog.toArray();
    expect(log.map((row) => row.ids)).toEqual([['during']]);
    const stored = await readSnapshot(db);
    expect(stored.rows).toHaveLength(1);
    expect(stored.mark).toBe(db.writeMark.committed);
    expect(stored.since.map((memory) => [memory.id, memory.now?.text])).toEqual([['during', 'written during the save']]);

    // A write the log does not hold (the log emptied behind the save's back) leaves the save uncommitted.
    blocks.allDirty();
    let gapped = false;
    const again = await saveSnapshot(db, index, blocks, stamp, db.writeMark.committed, null, async () => {
      if (gapped) return;
      gapped = true;
      await db.facts.put(buildFact({ userId: 'default', text: 'unlogged', id: 'gap' }, 3));
      await db.indexLog.clear();
    });
    expect(again).toBe(false);
    expect(((await db.snapshot.get('header')) as SnapshotHeader).mark).toBe(began);
    expect(blocks.hasChanges).toBe(true);
    db.close();
  });
});
