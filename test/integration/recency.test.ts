import { afterEach, describe, expect, it } from 'vitest';
import type { Memory, MemoryOptions } from '../../src/index.js';
import { freshIndexedDB, openMemory } from '../support/memory.js';

/**
 * Recency counts from the memory's own time (issue 47): its `createdAt`, or
 * the last recall that returned it, never from when it was imported or
 * written again. An imported history keeps the order of its own times.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});
async function open(options: Partial<MemoryOptions> = {}): Promise<Memory> {
  const m = await openMemory(options);
  memories.push(m);
  return m;
}

const DAY = 86_400_000;
const NOW = Date.UTC(2024, 0, 31, 12);

describe('recency from the memory’s own time', () => {
  it('an imported history decays from each turn’s createdAt, not from the import', async () => {
    const m = await open({ clock: () => NOW, ranking: { halfLifeDays: 10, weights: { recency: 1 } } });
    await m.turns.addMany([
      { id: 'old', speaker: 'Ana', text: 'We planted tomatoes in the garden', createdAt: NOW - 20 * DAY },
      { id: 'new', speaker: 'Ana', text: 'We planted tomatoes in the garden', createdAt: NOW - 10 * DAY },
    ]);
    const hits = await m.recall('tomatoes in the garden', { touch: false });
    expect(hits.map((h) => h.memory.id)).toEqual(['new', 'old']);
    expect(hits[0]!.parts.recency).toBeCloseTo(0.5, 12);
    expect(hits[1]!.parts.recency).toBeCloseTo(0.25, 12);
  });

  it('writing a memory again does not make it recent; a recall that returns it does', async () => {
    let now = NOW;
    const m = await open({ clock: () => now, ranking: { halfLifeDays: 10, weights: { recency: 1 } } });
    await m.facts.add({ id: 'f1', text: 'Ana bakes sourdough bread', createdAt: NOW - 10 * DAY });
    await m.facts.update('f1', { importance: 0.9 });
    expect((await m.recall('sourdough bread', { touch: false }))[0]!.parts.recency).toBeCloseTo(0.5, 12);
    // A real use: the recall that returns it (touch, the default) restarts its age from then.
    await m.recall('sourdough bread');
    now += 10 * DAY;
    expect((await m.recall('sourdough bread', { touch: false }))[0]!.parts.recency).toBeCloseTo(0.5, 12);
  });

  it('is the same after a reopen, from the snapshot or from the records', async () => {
    const idb = freshIndexedDB();
    const name = `recency-${process.pid}`;
    const first = await openMemory({ name, ...idb, clock: () => NOW, ranking: { halfLifeDays: 10, weights: { recency: 1 } } });
    await first.turns.addMany([{ id: 't1', speaker: 'Bo', text: 'The concert was loud', createdAt: NOW - 30 * DAY }]);
    const before = (await first.recall('concert', { touch: false }))[0]!.parts.recency;
    await first.close();
    for (const indexSnapshot of [undefined, false] as const) {
      const again = await open({ name, ...idb, clock: () => NOW, ranking: { halfLifeDays: 10, weights: { recency: 1 } }, ...(indexSnapshot === false ? { indexSnapshot } : {}) });
      expect((await again.recall('concert', { touch: false }))[0]!.parts.recency).toBe(before);
      await again.close();
      memories.splice(memories.indexOf(again), 1);
    }
    expect(before).toBeCloseTo(0.125, 12);
  });
});
