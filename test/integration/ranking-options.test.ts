import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError, type Memory, type RankingOptions } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * Ranking options are numbers that multiply and add into every recall score:
 * a value createMemory accepts must never make a score non-finite (issue 46,
 * "smaller escapes"), and one out of its range is refused with a typed error
 * naming the option.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});

const NOW = Date.UTC(2024, 2, 10, 12);
const DAY = 86_400_000;

async function seeded(ranking: RankingOptions): Promise<Memory> {
  const m = await openMemory({ ranking, clock: () => NOW });
  memories.push(m);
  await m.facts.add({ id: 'f1', text: 'Ana started the piano last month', importance: 1, pinned: true, createdAt: NOW - 3 * DAY });
  await m.turns.addMany([
    { id: 't1', speaker: 'Ana', sessionId: 's1', text: 'I adopted a cat yesterday', createdAt: NOW - 40 * DAY },
    { id: 't2', speaker: 'Bo', sessionId: 's1', text: 'What is her name?', createdAt: NOW - 40 * DAY + 1000 },
    { id: 't3', speaker: 'Ana', sessionId: 's1', text: 'Tuna, after her favourite food', createdAt: NOW - 40 * DAY + 2000 },
  ]);
  return m;
}

/** Queries that switch on every multiplier: a question about time, a named speaker, a date window. */
const QUERIES = ['When did Ana adopt the cat?', 'What did Ana say about the piano on March 7?', 'cat name'];

describe('ranking options', () => {
  it('refuses values that would make scores non-finite, with a ValidationError naming the option', async () => {
    await expect(openMemory({ ranking: { sourceWeights: { fact: 1e308 } } })).rejects.toThrow(ValidationError);
    await expect(openMemory({ ranking: { sourceWeights: { turn: 1e308 } } })).rejects.toThrow(/sourceWeights\.turn/);
    await expect(openMemory({ ranking: { halfLifeDays: 1e-300 } })).rejects.toThrow(/halfLifeDays/);
    await expect(openMemory({ ranking: { weights: { recency: Number.POSITIVE_INFINITY } } })).rejects.toThrow(/weights\.recency/);
    await expect(openMemory({ ranking: { speakerBoost: Number.NaN } })).rejects.toThrow(/speakerBoost/);
    await expect(openMemory({ ranking: { boostFloor: -0.1 } })).rejects.toThrow(/boostFloor/);
    await expect(openMemory({ ranking: { boostFloor: 1e308 } })).rejects.toThrow(/boostFloor/);
  });

  it('every value it accepts gives finite scores', async () => {
    // Each option over its whole documented range, ends included, and now and then far past it: createMemory either
    // refuses the value or every score stays finite.
    const upTo = (max: number) =>
      fc.oneof(
        { arbitrary: fc.constantFrom(0, 1e-300, 1e-3, 1, max), weight: 4 },
        { arbitrary: fc.double({ min: 0, max, noNaN: true }), weight: 4 },
        { arbitrary: fc.constantFrom(1e4, 1e300, 1e308), weight: 1 },
      );
    const options = fc.record(
      {
        weights: fc.record({ similarity: upTo(100), importance: upTo(100), recency: upTo(100), pinned: upTo(100) }, { requiredKeys: [] }),
        halfLifeDays: upTo(100_000),
        sourceWeights: fc.record({ episode: upTo(100), fact: upTo(100), turn: upTo(100) }, { requiredKeys: [] }),
        denseWeight: fc.double({ min: 0, max: 1, noNaN: true }),
        previousTurnWeight: fc.double({ min: 0, max: 1, noNaN: true }),
        timeQuestionBoost: upTo(10),
        speakerBoost: upTo(10),
        boostFloor: upTo(100),
      },
      { requiredKeys: [] },
    );
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(options, async (ranking) => {
        let m: Memory;
        try {
          m = await seeded(ranking);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          return;
        }
        accepted++;
        for (const query of QUERIES) {
          const hits = await m.recall(query, { k: 4, touch: false });
          expect(hits.length).toBeGreaterThan(0);
          for (const hit of hits) expect(Number.isFinite(hit.score), `${query}: ${hit.memory.id} scored ${hit.score}`).toBe(true);
        }
        await m.close();
        memories.splice(memories.indexOf(m), 1);
      }),
      { numRuns: 60, seed: 46 },
    );
    expect(accepted).toBeGreaterThan(10);
  });
});
