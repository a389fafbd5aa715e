import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildFact } from '../../src/memories/facts/build-fact.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { ChangeSignal, type ChangeMessage } from '../../src/index-sync/change-signal.js';
import { EngramDatabase } from '../../src/store/database.js';
import { packBlocks } from '../../src/store/vector-blocks.js';
import { settledUntil } from '../support/fake-time.js';
import { freshIndexedDB } from '../support/memory.js';

/**
 * The cross-tab change signal's receiving side (src/index-sync/change-signal.ts):
 * what another engine committed is read back from IndexedDB and applied to
 * this engine's index. Every read waits behind the writes queued on the
 * database before it; when other engines write without pauses, messages
 * arrive faster than one read each could follow, so they are read together.
 */
const DIMENSION = 4;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A database holding `count` facts with vectors, a publishing signal (another engine) and a listening one (this engine). */
async function setUp(count: number) {
  const factory = freshIndexedDB();
  const name = `change-signal-${Math.random().toString(36).slice(2)}`;
  const db = new EngramDatabase(name, factory);
  await db.open();
  const ids = Array.from({ length: count }, (_, i) => `f${i}`);
  await db.transaction('rw', [db.facts, db.vectorBlocks], async () => {
    await db.facts.bulkPut(ids.map((id, i) => buildFact({ id, userId: 'u', text: `fact number ${i}` }, 1)));
    await db.vectorBlocks.bulkAdd(packBlocks(ids.map((id, i) => ({ id, userId: 'u', kind: 'fact' as const, vector: new Float32Array([1, i, 0, 0]) }))));
  });
  const index = new MemoryIndex(DIMENSION);
  const heard: ChangeMessage[] = [];
  const receiver = new ChangeSignal(name, factory.indexedDB);
  const publisher = new ChangeSignal(name, factory.indexedDB);
  const reads = vi.spyOn(db, 'transaction');
  receiver.listen({ db, dimension: DIMENSION, index, taskIndex: new MemoryIndex(DIMENSION), onRefreshed: (message) => void heard.push(message) });
  cleanups.push(() => {
    receiver.close();
    publisher.close();
    db.close();
  });
  return { factory, name, ids, index, heard, receiver, publisher, reads };
}

/** Holds a readwrite transaction on `vectorBlocks` open (requests one after another) until released: reads queue behind it, as behind another engine's writes. */
async function holdWrites(factory: ReturnType<typeof freshIndexedDB>, name: string): Promise<() => void> {
  const raw = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.indexedDB.open(name);
    request.onsuccess = () => resolve(request.result as unknown as IDBDatabase);
    request.onerror = () => reject(request.error);
  });
  const tx = raw.transaction(['vectorBlocks'], 'readwrite');
  let held = true;
  const spin = () => {
    if (held) tx.objectStore('vectorBlocks').get('none').onsuccess = spin;
  };
  spin();
  return () => {
    held = false;
    tx.oncomplete = () => raw.close();
  };
}

const message = (id: string): ChangeMessage => ({ written: [id], deleted: [], userIds: ['u'], tables: ['facts'] });

describe('the change signal, receiving', () => {
  it('applies what another engine committed to the index, and tells the app once per change, in order', async () => {
    const { ids, index, heard, receiver, publisher } = await setUp(3);
    for (const id of ids) publisher.publish(message(id));
    expect(await settledUntil(() => heard.length === 3)).toBe(true);
    await receiver.settled();
    expect(ids.every((id) => index.has(id))).toBe(true);
    expect(heard.map((m) => m.written)).toEqual(ids.map((id) => [id]));
  });

  it('messages that arrive while reads wait behind writes are read together: a few reads, not one per message', async () => {
    const { factory, name, ids, index, heard, receiver, publisher, reads } = await setUp(40);
    const release = await holdWrites(factory, name);
    // Forty changes, each in its own task (as other engines' commits arrive), while every read waits.
    for (const id of ids) {
      publisher.publish(message(id));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Every message has arrived (the next ones after it would be read in one go), and none is applied yet.
    expect(await settledUntil(() => reads.mock.calls.length >= 1)).toBe(true);
    expect(heard).toHaveLength(0);
    release();
    expect(await settledUntil(() => heard.length === ids.length)).toBe(true);
    await receiver.settled();
    expect(ids.every((id) => index.has(id))).toBe(true);
    // One change event per change, in the order they were committed.
    expect(heard.map((m) => m.written[0])).toEqual(ids);
    // The reads already under way when the messages came, then one for everything that arrived meanwhile.
    expect(reads.mock.calls.length).toBeLessThanOrEqual(3);
  });

  it('a change of tables recall and tasks.relevant do not read (a profile, steps) is told to the app without a read', async () => {
    const { heard, receiver, publisher, reads } = await setUp(1);
    publisher.publish({ written: ['ana'], deleted: [], userIds: ['ana'], tables: ['profiles'] });
    publisher.publish({ written: ['task-1#1', 'task-1#2'], deleted: [], userIds: ['ana'], tables: ['steps'] });
    expect(await settledUntil(() => heard.length === 2)).toBe(true);
    await receiver.settled();
    expect(heard.map((m) => m.tables)).toEqual([['profiles'], ['steps']]);
    expect(reads).not.toHaveBeenCalled();
  });

  it('settled() waits for every message heard, also those waiting for a read to end', async () => {
    const { factory, name, ids, index, receiver, publisher } = await setUp(10);
    const release = await holdWrites(factory, name);
    for (const id of ids) {
      publisher.publish(message(id));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = receiver.settled();
    release();
    await settled;
    expect(ids.filter((id) => !index.has(id))).toEqual([]);
  });
});
