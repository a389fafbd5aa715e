import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../../src/index.js';
import { WRITE_AFTER_MS, WRITE_WITHIN_MS } from '../../src/recall/access-times.js';
import { freshIndexedDB, openMemory } from '../support/memory.js';

/**
 * Access times (recall/access-times.ts): back-to-back recalls gather their
 * accesses into one write instead of each queueing its reads behind the write
 * of the recall before; what they return, and what any other call reads,
 * still shows every access.
 */

const open: Memory[] = [];
afterEach(async () => {
  for (const memory of open.splice(0)) await memory.close();
});

/** A fresh IndexedDB whose readwrite transactions over `facts` are counted (wrapping each opened database). */
function countingIndexedDB(): { factory: ReturnType<typeof freshIndexedDB>; writes: () => number; times: number[] } {
  const factory = freshIndexedDB();
  let writes = 0;
  const times: number[] = [];
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
        }
        return transaction(stores, mode, options);
      }) as typeof db.transaction;
    });
    return request;
  };
  return { factory, writes: () => writes, times };
}

describe('access times', () => {
  it('back-to-back recalls are written together, not one write each; records and later calls see every access', async () => {
    const { factory, writes } = countingIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const memory = await openMemory({ ...factory, clock: () => now });
    open.push(memory);
    const fact = await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const before = writes();

    const started = performance.now();
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
    const elapsed = performance.now() - started;
    const during = writes() - before;
    // None while they go on, unless they went on for longer than WRITE_WITHIN_MS (each recall wrote at once before: 29 or 30 here).
    expect(during).toBeLessThanOrEqual(Math.floor(elapsed / WRITE_WITHIN_MS));
    console.log(`[access-times] ${recalls} back-to-back recalls in ${elapsed.toFixed(0)} ms: ${during} access write(s) during them`);

    // A pause writes them, in one write, with no other call.
    await new Promise((resolve) => setTimeout(resolve, WRITE_AFTER_MS * 4));
    expect(writes() - before).toBe(during + 1);
    expect((await memory.facts.get(fact.id)).lastAccessedAt).toBe(now);
  });

  it('recalls that never pause are still written every WRITE_WITHIN_MS', async () => {
    const { factory, writes, times } = countingIndexedDB();
    const memory = await openMemory({ ...factory });
    open.push(memory);
    await memory.facts.add({ text: 'The user keeps bees on the roof' });
    await memory.idle();
    const before = writes();
    const started = performance.now();
    let firstRecalled = 0;
    while (performance.now() - started < WRITE_WITHIN_MS * 1.5) {
      await memory.recall('bees on the roof');
      firstRecalled ||= performance.now();
      await new Promise((resolve) => setTimeout(resolve, WRITE_AFTER_MS / 5));
    }
    // No pause was long enough, yet the first access was written within WRITE_WITHIN_MS (and a timer's lateness).
    expect(writes()).toBeGreaterThan(before);
    expect(times[before]! - firstRecalled).toBeLessThan(WRITE_WITHIN_MS + WRITE_AFTER_MS);
  });

  it('idle() writes pending accesses at once, and they survive a reopen', async () => {
    const factory = freshIndexedDB();
    let now = Date.UTC(2026, 0, 1);
    const name = `access-times-${process.pid}`;
    const first = await openMemory({ ...factory, name, clock: () => now });
    const fact = await first.facts.add({ text: 'The user plays the cello on Sundays' });
    now += 5000;
    await first.recall('cello on Sundays');
    const started = performance.now();
    await first.idle();
    // Not held back by the write delay.
    expect(performance.now() - started).toBeLessThan(WRITE_AFTER_MS * 20);
    await first.close();
    const second = await openMemory({ ...factory, name, clock: () => now });
    open.push(second);
    expect((await second.facts.get(fact.id)).lastAccessedAt).toBe(now);
  });
});
