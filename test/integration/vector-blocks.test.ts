import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.js';
import { VECTOR_BLOCK_MAX } from '../../src/store/vector-blocks.js';
import { freshIndexedDB, realEmbedder, snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Vectors live in blocks of up to VECTOR_BLOCK_MAX memories (one IndexedDB
 * row each; src/store/vector-blocks.ts). What a user relies on: a bulk
 * insert costs a handful of rows, every memory keeps exactly one vector, a
 * deleted memory's vector leaves the disk, and a database written by an
 * earlier version (a row per vector) opens with everything recallable.
 */

interface RawBlock {
  id: string;
  userId: string;
  kind: string;
  ids: string[];
  vectors: Float32Array;
}

const memories = memoryFixture();

/** A memory on its own fake IndexedDB, and a raw reader of its vector blocks (not through the engine). */
async function setUp() {
  const idb = freshIndexedDB();
  const name = `blocks-${Math.random().toString(36).slice(2)}`;
  const memory = await memories.open({ name, ...idb });
  const raw = async (): Promise<RawBlock[]> => {
    const db = new Dexie(name, idb);
    await db.open(); // dynamic mode: the schema as stored
    try {
      return (await db.table('vectorBlocks').toArray()) as RawBlock[];
    } finally {
      db.close();
    }
  };
  return { memory, raw, idb, name };
}

/** Every stored vector, by memory id; fails on an id stored twice. */
function vectorsById(blocks: RawBlock[]): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const block of blocks) {
    const dimension = block.vectors.length / block.ids.length;
    block.ids.forEach((id, i) => {
      expect(out.has(id), `memory ${id} has two stored vectors`).toBe(false);
      out.set(id, block.vectors.slice(i * dimension, (i + 1) * dimension));
    });
  }
  return out;
}

const texts = (n: number, prefix = 'note') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, text: `${prefix} ${i} about the garden, the bike and the kitchen` }));

describe('vectors in blocks', () => {
  it('a bulk insert writes one row per block of memories, not one per memory', async () => {
    const { memory, raw } = await setUp();
    const n = 2 * VECTOR_BLOCK_MAX + 3;
    await memory.facts.addMany(texts(n));
    const blocks = await raw();
    expect(blocks).toHaveLength(3);
    expect(blocks.every((b) => b.ids.length <= VECTOR_BLOCK_MAX && b.kind === 'fact' && b.userId === 'default')).toBe(true);
    expect([...vectorsById(blocks).keys()].sort()).toEqual(texts(n).map((t) => t.id).sort());
  });

  it("blocks are per user: forget() removes every block of that user and no other user's", async () => {
    const { memory, raw } = await setUp();
    await memory.facts.addMany(texts(10, 'ana').map((t) => ({ ...t, userId: 'ana' })));
    await memory.facts.addMany(texts(10, 'bo').map((t) => ({ ...t, userId: 'bo' })));
    await memory.forget({ userId: 'ana' });
    const blocks = await raw();
    expect(blocks.map((b) => b.userId)).toEqual(['bo']);
    expect((await memory.recall('garden bike', { userId: 'bo' })).length).toBeGreaterThan(0);
    expect(await memory.recall('garden bike', { userId: 'ana' })).toEqual([]);
  });

  it('deleting one memory rewrites its block without it: its vector leaves the disk, the others keep theirs', async () => {
    const { memory, raw } = await setUp();
    await memory.facts.addMany(texts(20));
    const before = vectorsById(await raw());
    await memory.facts.delete('note-7');
    const after = vectorsById(await raw());
    expect(after.has('note-7')).toBe(false);
    expect(after.size).toBe(19);
    for (const [id, vector] of after) expect([...vector]).toEqual([...before.get(id)!]);
    const hits = await memory.recall('note 7 about the garden', { k: 20 });
    expect(hits.map((h) => h.memory.id)).not.toContain('note-7');
  });

  it('deleting every memory of a block deletes the block', async () => {
    const { memory, raw } = await setUp();
    await memory.facts.addMany(texts(3));
    for (const id of ['note-0', 'note-1', 'note-2']) await memory.facts.delete(id);
    expect(await raw()).toEqual([]);
  });

  it('a new text replaces the vector (one per memory), and so does re-adding an id in a bulk insert', async () => {
    const { memory, raw } = await setUp();
    await memory.facts.addMany(texts(5));
    const embedder = await realEmbedder();
    await memory.facts.update('note-1', { text: 'The user collects vintage typewriters' });
    let stored = vectorsById(await raw());
    expect(stored.size).toBe(5);
    const [typewriters] = await embedder.embed(['The user collects vintage typewriters']);
    expect(cosine(stored.get('note-1')!, typewriters!)).toBeCloseTo(1, 5);

    // Ids 3 and 4 exist (their old vectors go), 5 and 6 are new.
    await memory.facts.addMany([3, 4, 5, 6].map((i) => ({ id: `note-${i}`, text: `The user speaks language number ${i}` })));
    stored = vectorsById(await raw());
    expect([...stored.keys()].sort()).toEqual(['note-0', 'note-1', 'note-2', 'note-3', 'note-4', 'note-5', 'note-6']);
    const [four] = await embedder.embed(['The user speaks language number 4']);
    expect(cosine(stored.get('note-4')!, four!)).toBeCloseTo(1, 5);
  });

  it('a memory whose vector is missing gets it back at the next open (repair), once', async () => {
    const { memory, raw, idb, name } = await setUp();
    await memory.facts.add({ id: 'lost', text: 'The user keeps bees on the roof' });
    await memory.facts.add({ id: 'kept', text: 'The user plays chess on Sundays' });
    await memory.close();
    // The vector of 'lost' disappears (a store written by a buggy version, say); the index snapshot is off so the open reads the records.
    const db = new Dexie(name, idb);
    await db.open();
    const block = ((await db.table('vectorBlocks').toArray()) as RawBlock[]).find((b) => b.ids.includes('lost'))!;
    await db.table('vectorBlocks').delete(block.id);
    db.close();
    const reopened = await memories.open({ name, ...idb, indexSnapshot: false });
    expect((await reopened.info()).indexed).toBe(2);
    expect((await reopened.recall('bees on the roof', { k: 1 }))[0]!.memory.id).toBe('lost');
    expect([...vectorsById(await raw()).keys()].sort()).toEqual(['kept', 'lost']);
  });

  it('episodes evicted by the cap and replaced by dedup take their vectors with them', async () => {
    const idb = freshIndexedDB();
    const capped = await memories.open({ name: 'capped', ...idb, lifecycle: { maxEpisodes: 3, dedupThreshold: 0.92 } });
    const replaced: string[] = [];
    capped.on('dedup', (e) => replaced.push(e.replacedId));
    for (const topic of ['sailing', 'pottery', 'chess', 'baking', 'climbing']) await capped.episodes.add({ text: `We planned the ${topic} weekend in detail` });
    await capped.episodes.add({ text: 'We planned the climbing weekend in detail' });
    expect(replaced).toHaveLength(1);
    const episodes = await capped.episodes.list({ limit: 10 });
    expect(episodes).toHaveLength(3);
    const db = new Dexie('capped', idb);
    await db.open();
    const stored = vectorsById((await db.table('vectorBlocks').toArray()) as RawBlock[]);
    db.close();
    expect([...stored.keys()].sort()).toEqual(episodes.map((e) => e.id).sort());
  });
});

describe('a database written by an earlier version (a row per vector)', () => {
  it('opens with its vectors moved into blocks: same memories, same recall, nothing left in the old table', async () => {
    const idb = freshIndexedDB();
    const name = 'v3-store';
    // The v3 layout, written as that version did: a row per vector in `vectors`.
    const embedder = await realEmbedder();
    const facts = texts(300, 'legacy').map((t, i) => ({ ...t, userId: i % 2 ? 'ana' : 'bo' }));
    const vectors = await embedder.embed(facts.map((f) => f.text));
    const old = new Dexie(name, idb);
    old.version(1).stores({
      episodes: 'id, userId, [userId+createdAt], [userId+endedAt], sessionId, parentId, *tags, *participants, *toolsUsed, *entities, outcomeStatus, state',
      facts: 'id, userId, [userId+createdAt], [userId+category], [userId+status], supersededBy, *tags',
      vectors: 'id, userId',
      jobs: 'id, kind, userId, runAfter',
      events: '++seq, type, userId, at',
      profiles: 'userId',
      meta: 'key',
    });
    old.version(2).stores({ tasks: 'id, userId, [userId+status], startedAt', steps: 'id, taskId, [taskId+index]', patterns: 'id, userId, [userId+domain], [userId+language], kind' });
    old.version(3).stores({ snapshot: 'key' });
    await old.open();
    const now = Date.now();
    await old.table('facts').bulkAdd(
      facts.map((f) => ({
        id: f.id, type: 'fact', userId: f.userId, sessionId: null, text: f.text, category: 'other', importance: 0.5, pinned: false, tags: [],
        source: 'manual', status: 'current', validFrom: now, validUntil: null, supersededBy: null, metadata: {}, createdAt: now, updatedAt: now, lastAccessedAt: now,
      })),
    );
    await old.table('vectors').bulkAdd(facts.map((f, i) => ({ id: f.id, userId: f.userId, kind: 'fact', vector: vectors[i]! })));
    await old.table('meta').put({ key: 'embedder', value: { id: embedder.id, dimension: embedder.dimension } });
    old.close();

    const memory = memories.keep(await createMemory({ name, ...idb, embedder }));
    expect((await memory.info()).indexed).toBe(300);
    expect((await memory.recall('legacy 17 about the garden', { userId: 'ana', k: 1 }))[0]!.memory.id).toBe('legacy-17');
    const lines = await snapshot(memory);
    expect(lines.filter((l) => l.includes('"kind":"vector"'))).toHaveLength(300);

    const raw = new Dexie(name, idb);
    await raw.open();
    expect(raw.tables.map((t) => t.name)).not.toContain('vectors');
    const stored = vectorsById((await raw.table('vectorBlocks').toArray()) as RawBlock[]);
    expect(stored.size).toBe(300);
    facts.forEach((f, i) => expect(cosine(stored.get(f.id)!, vectors[i]!)).toBeCloseTo(1, 6));
    // The fact indexes no query used are gone; where('userId') still works through [userId+createdAt].
    expect(raw.table('facts').schema.indexes.map((i) => i.name).sort()).toEqual(['[userId+createdAt]', 'supersededBy', 'tags']);
    raw.close();
    expect(await memory.facts.list({ userId: 'ana', limit: 1000 })).toHaveLength(150);
    await memory.forget({ userId: 'ana' });
    expect((await memory.info()).indexed).toBe(150);
  });
});

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}
