import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type Memory, type MemoryOptions, type RankingOptions } from '../../src/index.js';
import { EngramDatabase } from '../../src/store/database.js';
import { saveSnapshot, SnapshotBlocks } from '../../src/store/index-snapshot.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { freshIndexedDB, openMemory, realEmbedder } from '../support/memory.js';

/**
 * The persisted index snapshot (src/store/index-snapshot.ts): a large store
 * opens from a few blocks instead of every record, and never from a snapshot
 * that misses a committed write.
 */
const open: Memory[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

function database(): Partial<MemoryOptions> {
  return { name: `snapshot-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
}

async function openOn(db: Partial<MemoryOptions>, options: Partial<MemoryOptions> = {}): Promise<Memory> {
  const memory = await openMemory({ ...db, ...options });
  open.push(memory);
  return memory;
}

async function closeIt(memory: Memory): Promise<void> {
  open.splice(open.indexOf(memory), 1);
  await memory.close();
}

const VECTOR_ONLY: RankingOptions = { denseWeight: 1 };
const QUERIES = ['what does she like to eat', 'hiking in the mountains', 'the project deadline', 'zebra', 'music and guitars'];
const TOPICS = ['likes sushi and ramen', 'went hiking in the Alps', 'the project deadline moved to Friday', 'plays the guitar', 'adopted a cat named Miso'];

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

  it('a write the snapshot missed (the tab died before saving) makes the next open read the records', async () => {
    const db = database();
    const first = await openOn(db);
    await seed(first, 200);
    await closeIt(first);

    // This engine never gets to save: a huge delay and no close() before the next open.
    const dying = await openOn(db, { indexSnapshot: { saveDelayMs: 3_600_000 } });
    await dying.facts.add({ id: 'unsaved', userId: 'ana', text: 'zebra crossing near the office' });

    const next = await openOn(db);
    expect(await next.info()).toMatchObject({ openedFrom: 'records', indexed: 202 });
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
    await seed(writer, 100);
    // Watch the store itself (a second connection to the same database) for the snapshot's header.
    const raw = new EngramDatabase(db.name!, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    const started = Date.now();
    while (!(await raw.snapshot.get('header'))) {
      if (Date.now() - started > 10_000) throw new Error('no snapshot was saved within 10 s of the last write');
      await new Promise((r) => setTimeout(r, 20));
    }
    raw.close();
    expect(await (await openOn(db)).info()).toMatchObject({ openedFrom: 'snapshot', indexed: 101 });
  });

  it('indexSnapshot: false saves none', async () => {
    const db = database();
    const first = await openOn(db, { indexSnapshot: false });
    await seed(first, 50);
    await closeIt(first);
    expect((await (await openOn(db)).info()).openedFrom).toBe('records');
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
    const blocks = new SnapshotBlocks();
    index.observe(blocks);
    const [vector] = await embedder.embed(['hello']);
    index.upsert({
      doc: { id: 'x', userId: 'u', kind: 'fact', createdAt: 0, touchedAt: 0, tags: [], importance: 0.5, pinned: false, archived: false, fields: {} },
      text: 'hello',
      vector: vector!,
    });
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
});
