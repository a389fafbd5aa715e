import Dexie from 'dexie';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * recall reads its hits' records straight from IndexedDB (store/read-by-ids.ts)
 * and through Dexie when that cannot read: either way the same answer.
 */
const { open } = memoryFixture();
// Registered after the fixture, so it runs before the fixture closes the memories (after-hooks run last first).
afterEach(() => {
  vi.restoreAllMocks();
});

describe('recall reading its records', () => {
  it('answers the same straight from IndexedDB as through Dexie, for facts, turns and episodes together', async () => {
    const memory = await open();
    await memory.facts.add({ text: 'The user keeps bees on the roof of their flat in Porto', tags: ['bees'], metadata: { hives: 2 } });
    await memory.facts.add({ text: 'The user prefers green tea in the morning' });
    await memory.turns.add({ speaker: 'user', text: 'The bees swarmed again this morning, the whole roof was buzzing' });
    await memory.episodes.add({ text: 'Helped the user plan moving a bee hive before the spring swarm' });
    const direct = vi.spyOn(Dexie.prototype, 'backendDB');
    const straight = await memory.recall('bees on the roof', { k: 10, touch: false });
    expect(direct).toHaveBeenCalled();
    expect(new Set(straight.map((hit) => hit.memory.type))).toEqual(new Set(['fact', 'turn', 'episode']));
    expect(straight.find((hit) => hit.memory.type === 'fact' && hit.memory.text.includes('bees'))?.memory).toMatchObject({ tags: ['bees'], metadata: { hives: 2 } });

    // The direct read unavailable (as with a database IndexedDB closed under Dexie): Dexie reads the same records.
    direct.mockImplementation(() => {
      throw new Error('no database');
    });
    // (The same records in the same order; the scores' recency part moves with the clock between the two calls.)
    const viaDexie = await memory.recall('bees on the roof', { k: 10, touch: false });
    expect(viaDexie.map((hit) => hit.memory)).toEqual(straight.map((hit) => hit.memory));
  });
});
