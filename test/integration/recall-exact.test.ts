import { describe, expect, it } from 'vitest';
import { syntheticTexts } from '../../bench/synthetic.js';
import type { RecallHit, RecallOptions } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * recall's top k is exact: asking for 10 gives the first 10 of asking for
 * 1,000, ids and scores, on a store where pins, importance and ages move
 * memories far from their place by similarity (the real offline model, the
 * default ranking). Before the fix, the 10 came from a pool of the 50 best
 * by cosine and by keywords, picked before the pins were added.
 */
const DAY = 86_400_000;

const { open } = memoryFixture();

const view = (hits: RecallHit[]) => hits.map((h) => ({ id: h.memory.id, score: h.score }));

describe('recall top k', () => {
  it('recall(q, { k: 10 }) is the first 10 of recall(q, { k: 1000 }) with pinned, important and old memories', async () => {
    let now = Date.UTC(2026, 0, 1);
    const memory = await open({ clock: () => now });
    const texts = syntheticTexts(600, 3);
    // Six months of memories, 100 a month: every 7th pinned, importance in four levels, a tag on every 3rd.
    for (let month = 0; month < 6; month++) {
      const batch = texts.slice(month * 100, (month + 1) * 100);
      await memory.facts.addMany(
        batch.map((text, j) => {
          const i = month * 100 + j;
          return { text, pinned: i % 7 === 0, importance: [0.1, 0.4, 0.7, 1][i % 4], tags: i % 3 === 0 ? ['third'] : [] };
        }),
        { returnRecords: false },
      );
      now += 30 * DAY;
    }
    // Queries in the store's words (keywords match) and in other words (only the embedding does). On the
    // old pool, 18 of these 45 answers missed memories that k: 1000 ranks in its first 10 (64 of them pinned).
    const queries = [
      ...syntheticTexts(8, 77).map((t) => t.split(' ').slice(0, 3).join(' ')),
      'airplane trip abroad',
      'cooking for friends',
      'feeling sick',
      'money matters',
      'playing an instrument',
      'sports and exercise',
      'family visit',
    ];
    const filters: RecallOptions[] = [{}, { tags: ['third'] }, { types: ['fact'], since: Date.UTC(2026, 2, 1) }];
    let pinnedInTop = 0;
    for (const q of queries) {
      for (const filter of filters) {
        const top10 = await memory.recall(q, { ...filter, k: 10, touch: false });
        const all = await memory.recall(q, { ...filter, k: 1000, touch: false });
        expect(top10).toHaveLength(10);
        expect(view(top10)).toEqual(view(all.slice(0, 10)));
        pinnedInTop += top10.filter((h) => h.memory.pinned).length;
      }
    }
    // The store does exercise the pins: they reach the top 10 often (but do not fill it).
    expect(pinnedInTop).toBeGreaterThan(queries.length);
    expect(pinnedInTop).toBeLessThan(queries.length * filters.length * 10);
  });
});
