import { afterEach, describe, expect, it, vi } from 'vitest';
import { WRITE_AFTER_MS, WRITE_CHUNK, WRITE_WITHIN_MS } from '../../src/recall/access-times.js';
import { freshIndexedDB } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';
import { settleTasks, useFakeTimers } from '../support/fake-time.js';

/**
 * Access times (recall/access-times.ts): back-to-back recalls gather their
 * accesses into one write instead of each queueing its reads behind the write
 * of the recall before; what they return, and what any other call reads,
 * still shows every access.
 *
 * The write's timers run on vitest's fake timers (setTimeout and
 * performance.now: the write delay and how long accesses have waited), so
 * "back to back", "a pause" and "within WRITE_WITHIN_MS" are exact whatever
 * the machine is doing (test/support/fake-time.ts).
 */
const memories = memoryFixture();
// Registered after the fixture, so real timers are back before it closes the memories (after-hooks run last first).
afterEach(() => {
  vi.useRealTimers();
});
/** A fresh IndexedDB whose readwrite transactions over `facts` are counted (wrapping each opened database). */
function countingIndexedDB(): { factory: ReturnType<typeof freshIndexedDB>; writes: () => number; times: number[]; scopes: string[][] } {
  const factory = freshIndexedDB();
  let writes = 0;
  const times: number[] = [];
  /** The stores of each of those transactions. */
  const scopes: string[][] = [];
  const openDatabase = factory.indexedDB.open.bind(factory.indexedDB);
  factory.indexedDB.open = (name: string, version?: number) => {
    const request = openDatabase(name, version);
    // Registered before Dexie's handler, so the database is wrapped before Dexie uses it.
    request.addEventListener('success', () => {
      const db = request.result;
      const transaction = db.transaction.bind(db);
      db.transaction = ((stores: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) => {
        if (mode === 'readwrite' && [stores].flat().includes('facts')) {
          writes++;
          times.push(performance.now());
          scopes.push([stores].flat());
        }
        return transaction(stores, mode, options);
      }) as typeof db.transaction;
    });
    return request;
  };
  return { factory, writes: () => writes, times, scopes };
}

/** A fact's `lastAccessedAt` as stored now, read straight from IndexedDB (not through the engine, which would write pending accesses first). */
async function storedLastAccess(indexedDB: IDBFactory, name: string, id: string): Promise<number> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      const request = db.transaction('facts', 'readonly').objectStore('facts').get(id);
      request.onsuccess = () => resolve((request.result as { lastAccessedAt: number }).lastAccessedAt);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

describe('access times', () => {
  it('back-to-back recalls are written together, not one write each; records and later calls see every access', async () => {
    const { factory, writes } = countingIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const fact = await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const before = writes();

    useFakeTimers();
    const recalls = 30;
    let previous = fact.lastAccessedAt;
    for (let i = 1; i <= recalls; i++) {
      now += 1000;
      const [hit] = await memory.recall('bees on the roof');
      expect(hit!.memory.id).toBe(fact.id);
      // The record shows the access of the recall before this one, even though it may not be written yet.
      expect(hit!.memory.lastAccessedAt).toBe(previous);
      previous = now;
    }
    // Back to back (no time passed between them): none written while they went on (each recall wrote at once before: 30 writes).
    await settleTasks();
    expect(writes() - before).toBe(0);

    // A pause shorter than WRITE_AFTER_MS writes nothing; reaching it writes them all, in one write, with no other call.
    await vi.advanceTimersByTimeAsync(WRITE_AFTER_MS - 1);
    await settleTasks();
    expect(writes() - before).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await settleTasks();
    expect(writes() - before).toBe(1);
    vi.useRealTimers();
    expect((await memory.facts.get(fact.id)).lastAccessedAt).toBe(now);
    expect(writes() - before).toBe(1);
  });

  it('recalls that never pause are written only once the first has waited WRITE_WITHIN_MS', async () => {
    const { factory, writes, times } = countingIndexedDB();
    const memory = await memories.open({ ...factory });
    await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const before = writes();
    useFakeTimers();
    const firstRecalled = performance.now();
    const step = WRITE_AFTER_MS / 2;
    // A recall every WRITE_AFTER_MS / 2: never a pause long enough, until the first access has waited WRITE_WITHIN_MS.
    while (performance.now() - firstRecalled < WRITE_WITHIN_MS + 2 * step) {
      await memory.recall('bees on the roof');
      await vi.advanceTimersByTimeAsync(step);
      await settleTasks();
    }
    // Nothing was written while the stream went on, until the first access had waited WRITE_WITHIN_MS; then it was.
    expect(writes()).toBeGreaterThan(before);
    expect(times[before]! - firstRecalled).toBeGreaterThanOrEqual(WRITE_WITHIN_MS);
    expect(times[before]! - firstRecalled).toBeLessThanOrEqual(WRITE_WITHIN_MS + step);
  });

  it('the write waits for a pause of every call, not only of recalls', async () => {
    const { factory, scopes } = countingIndexedDB();
    // The access-time writes: over facts without turns (a turn's own commit takes both).
    const writes = () => scopes.filter((stores) => !stores.includes('turns')).length;
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const fact = await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const before = writes();
    useFakeTimers();
    now += 1000;
    await memory.recall('bees on the roof');
    // Other calls keep coming, each sooner than WRITE_AFTER_MS after the one before, for 4 x WRITE_AFTER_MS.
    for (let i = 0; i < 8; i++) {
      await memory.turns.add({ speaker: 'user', text: `The hive is busy today, note ${i}` });
      await vi.advanceTimersByTimeAsync(WRITE_AFTER_MS / 2);
      await settleTasks();
    }
    expect(writes() - before).toBe(0);
    // They pause: the access is written (one write) within two WRITE_AFTER_MS.
    await vi.advanceTimersByTimeAsync(2 * WRITE_AFTER_MS);
    await settleTasks();
    expect(writes() - before).toBe(1);
    vi.useRealTimers();
    expect((await memory.facts.get(fact.id)).lastAccessedAt).toBe(now);
  });

  it('a call that arrives while the background write runs holds its next chunk until calls pause again', async () => {
    const { factory, scopes } = countingIndexedDB();
    // The access-time writes: over facts without turns (a turn's own commit takes both).
    const writes = () => scopes.filter((stores) => !stores.includes('turns')).length;
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const count = WRITE_CHUNK + 8;
    await memory.facts.addMany(Array.from({ length: count }, (_, i) => ({ text: `The user's bee hive number ${i} stands by the garden wall` })));
    await memory.idle();
    const before = writes();
    useFakeTimers();
    now += 1000;
    expect(await memory.recall('bee hive by the garden wall', { k: count })).toHaveLength(count);
    // The pause comes: the first chunk's write starts, and a call arrives before it is done.
    vi.advanceTimersByTime(WRITE_AFTER_MS);
    const added = memory.turns.add({ speaker: 'user', text: 'The hive is busy today' });
    await settleTasks();
    await added;
    await settleTasks();
    // The second chunk waits for the calls' next pause.
    expect(writes() - before).toBe(1);
    await vi.advanceTimersByTimeAsync(WRITE_AFTER_MS);
    await settleTasks();
    expect(writes() - before).toBe(2);
  });

  it('a call that reads records while the background write waits for a pause is not held by that wait', async () => {
    const { factory, scopes } = countingIndexedDB();
    // The access-time writes: over facts without turns (a turn's own commit takes both).
    const writes = () => scopes.filter((stores) => !stores.includes('turns')).length;
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const count = WRITE_CHUNK + 8;
    await memory.facts.addMany(Array.from({ length: count }, (_, i) => ({ text: `The user's bee hive number ${i} stands by the garden wall` })));
    await memory.idle();
    const before = writes();
    useFakeTimers();
    now += 1000;
    const hits = await memory.recall('bee hive by the garden wall', { k: count });
    vi.advanceTimersByTime(WRITE_AFTER_MS);
    await memory.turns.add({ speaker: 'user', text: 'The hive is busy today' });
    await settleTasks();
    expect(writes() - before).toBe(1);
    // facts.get writes the rest first, with the fake clock standing still, and shows the access.
    const read = memory.facts.get(hits[count - 1]!.memory.id);
    let done = false;
    void read.then(() => (done = true));
    for (let i = 0; i < 20 && !done; i++) await settleTasks();
    expect(done).toBe(true);
    expect(writes() - before).toBe(2);
    expect((await read).lastAccessedAt).toBe(now);
  });

  it('idle() writes pending accesses at once, and they survive a reopen', async () => {
    const factory = freshIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const name = `access-times-${process.pid}`;
    const first = await memories.open({ ...factory, name, clock: () => now });
    const fact = await first.facts.add({ text: 'The user plays the cello on Sundays' });
    now += 5000;
    useFakeTimers();
    await first.recall('cello on Sundays');
    // Not held back by the write delay: idle() resolves with the fake clock standing still (its timer never fires).
    let idle = false;
    void first.idle().then(() => (idle = true));
    for (let i = 0; i < 20 && !idle; i++) await settleTasks();
    expect(idle).toBe(true);
    vi.useRealTimers();
    await first.close();
    const second = await memories.open({ ...factory, name, clock: () => now });
    expect((await second.facts.get(fact.id)).lastAccessedAt).toBe(now);
  });

  it('observe() and turns.add() do not wait for a pending access-time write; a call that reads records does, and export shows the access', async () => {
    const factory = freshIndexedDB();
    const name = `access-times-writes-${process.pid}`;
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, name, clock: () => now });
    const fact = await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const stored = () => storedLastAccess(factory.indexedDB, name, fact.id);

    useFakeTimers();
    now += 1000;
    await memory.recall('bees on the roof');
    const accessed = now;
    // The write is pending (its timer stands still): these writes go ahead of it instead of writing it first.
    await memory.observe({ user: 'I bought a new hive', assistant: 'Nice, where will it go?' });
    await memory.turns.add({ speaker: 'user', text: 'Next to the old one' });
    await settleTasks();
    expect(await stored()).toBe(fact.lastAccessedAt);
    // A read of a record the recall returned writes the pending access first, and shows it.
    expect((await memory.facts.get(fact.id)).lastAccessedAt).toBe(accessed);
    expect(await stored()).toBe(accessed);
    vi.useRealTimers();
    const exported = await (await memory.export()).text();
    const line = exported.split('\n').find((l) => l.includes(fact.id));
    expect(JSON.parse(line!)).toMatchObject({ kind: 'fact', record: { id: fact.id, lastAccessedAt: accessed } });
  });

  it('facts.add does not wait for a pending access-time write, and a fact it merges into keeps the pending access', async () => {
    const factory = freshIndexedDB();
    const name = `access-times-add-${process.pid}`;
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, name, clock: () => now });
    const fact = await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const stored = () => storedLastAccess(factory.indexedDB, name, fact.id);

    useFakeTimers();
    now += 1000;
    await memory.recall('bees on the roof');
    const accessed = now;
    now += 1000;
    // Another fact: added while the write stays pending (its timer stands still).
    await memory.facts.add({ text: 'The user was born in Lisbon' });
    await settleTasks();
    expect(await stored()).toBe(fact.lastAccessedAt);
    // The same fact again merges into the recalled one: the version it keeps has the access not yet written.
    await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await settleTasks();
    expect(await stored()).toBe(accessed);
  });

  it('a large batch is written in transactions of at most WRITE_CHUNK records over the recalled kind alone', async () => {
    const { factory, writes, scopes } = countingIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const count = WRITE_CHUNK + 8;
    const added = await memory.facts.addMany(Array.from({ length: count }, (_, i) => ({ text: `The user's bee hive number ${i} stands by the garden wall` })));
    await memory.idle();
    const before = writes();
    now += 1000;
    const hits = await memory.recall('bee hive by the garden wall', { k: count });
    expect(hits).toHaveLength(count);
    await memory.idle();
    // Two transactions (WRITE_CHUNK, then 8), not one; over the facts table (and the write lock's and write log's stores), not every kind's.
    expect(writes() - before).toBe(2);
    for (const stores of scopes.slice(before)) {
      expect(stores).toContain('facts');
      expect(stores).not.toContain('turns');
      expect(stores).not.toContain('episodes');
      expect(stores).not.toContain('vectorBlocks');
    }
    const stored = await memory.facts.list({ limit: count });
    expect(stored.filter((f) => added.some((a) => typeof a !== 'string' && a.id === f.id) && f.lastAccessedAt === now)).toHaveLength(count);
  });

  it('close() writes a large pending batch in one transaction per kind, not in chunks', async () => {
    const { factory, writes } = countingIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const memory = await memories.open({ ...factory, clock: () => now });
    const count = WRITE_CHUNK + 8;
    await memory.facts.addMany(Array.from({ length: count }, (_, i) => ({ text: `The user's bee hive number ${i} stands by the garden wall` })));
    await memory.idle();
    const before = writes();
    useFakeTimers();
    now += 1000;
    expect(await memory.recall('bee hive by the garden wall', { k: count })).toHaveLength(count);
    vi.useRealTimers();
    // No call can come any more: chunks would only add a transaction each.
    await memory.close();
    expect(writes() - before).toBe(1);
  });

  it('close() writes pending accesses, and they survive a reopen', async () => {
    const factory = freshIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const name = `access-times-close-${process.pid}`;
    const first = await memories.open({ ...factory, name, clock: () => now });
    const fact = await first.facts.add({ text: 'The user plays the cello on Sundays' });
    now += 5000;
    useFakeTimers();
    await first.recall('cello on Sundays');
    vi.useRealTimers();
    await first.close();
    const second = await memories.open({ ...factory, name, clock: () => now });
    expect((await second.facts.get(fact.id)).lastAccessedAt).toBe(now);
  });
});
