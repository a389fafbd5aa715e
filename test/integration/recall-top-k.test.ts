import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Memory, RankingOptions, RecallHit } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * Exact top k over every scoring part (issue 46, item 7): `recall(q, { k })`
 * is the first k of `recall(q, { k: 1000 })`, ids, scores and parts, also
 * where a turn scores through the turn before it (`previousTurn`) times its
 * own boosts (a named speaker, a question about time, a time window of the
 * query), which can lift it above the turn it was carried from.
 */
const opened: Memory[] = [];
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close()));
});

const NOW = Date.UTC(2024, 4, 20, 18);
const DAY = 86_400_000;
const SPEAKERS = ['Ana', 'Bo', 'Cy'];
const WORDS = ['cat', 'tuna', 'piano', 'garden', 'hiking', 'concert', 'tomatoes', 'painting', 'camping', 'dinner', 'book', 'movie'];
const TIMES = ['yesterday', 'last week', 'two days ago', 'last month', 'on Friday', ''];
const QUERIES = [
  'What does Ana like to eat?',
  'When did Bo go camping?',
  'Cy piano concert',
  'What did Ana say about the garden yesterday?',
  'When did Ana and Bo talk about the movie?',
  'tuna',
  'What did we discuss on May 18?',
  'What did Bo say about hiking last week?',
  'What did we talk about in the first session?',
  'What did Cy say about painting two sessions ago?',
];

interface Store {
  turns: { speaker: string; text: string; session: number; day: number; pinned: boolean; importance: number }[];
  ranking: RankingOptions;
}

const store: fc.Arbitrary<Store> = fc.record({
  turns: fc.array(
    fc.record({
      speaker: fc.constantFrom(...SPEAKERS),
      text: fc.tuple(fc.subarray(WORDS, { minLength: 1, maxLength: 3 }), fc.constantFrom(...TIMES), fc.boolean()).map(([words, time, question]) => `${question ? 'Did you like the' : 'I loved the'} ${words.join(' and ')} ${time}`.trim()),
      session: fc.integer({ min: 0, max: 5 }),
      day: fc.integer({ min: 0, max: 20 }),
      pinned: fc.constantFrom(false, false, false, true),
      importance: fc.constantFrom(0.2, 0.5, 0.9),
    }),
    { minLength: 20, maxLength: 50 },
  ),
  ranking: fc.record({
    previousTurnWeight: fc.constantFrom(0.85, 0.95, 1),
    speakerBoost: fc.constantFrom(0.2, 0.5, 1),
    timeQuestionBoost: fc.constantFrom(0.3, 1),
    weights: fc.record({ pinned: fc.constantFrom(0.1, 0.5), recency: fc.constantFrom(0.05, 0.3) }),
  }),
});

async function build({ turns, ranking }: Store): Promise<Memory> {
  const m = await openMemory({ ranking, clock: () => NOW, timeZone: 'UTC' });
  opened.push(m);
  // Sessions follow each other in time (session s on days 3s..3s+2), turns of different sessions interleave in `seq`.
  await m.turns.addMany(
    turns.map((t, i) => ({
      id: `t${String(i).padStart(3, '0')}`,
      speaker: t.speaker,
      text: t.text,
      sessionId: `s${t.session}`,
      createdAt: NOW - (20 - t.session * 3 - (t.day % 3)) * DAY + i * 1000,
      pinned: t.pinned,
      importance: t.importance,
    })),
  );
  return m;
}

const view = (hits: RecallHit[]) => hits.map((h) => ({ id: h.memory.id, score: h.score, parts: h.parts }));

describe('recall(k) is the first k of recall(k: 1000)', () => {
  it('over turns with speakers, sessions, time words and pins', async () => {
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(store, fc.subarray(QUERIES, { minLength: 3, maxLength: 5 }), async (s, queries) => {
        const m = await build(s);
        for (const query of queries) {
          const all = view(await m.recall(query, { k: 1000, touch: false }));
          for (const k of [1, 2, 3, 5, 8, 13]) {
            const top = view(await m.recall(query, { k, touch: false }));
            expect(top, `${query} k=${k}`).toEqual(all.slice(0, k));
            checks++;
          }
        }
        await m.close();
        opened.splice(opened.indexOf(m), 1);
      }),
      { numRuns: 12, seed: 4607 },
    );
    expect(checks).toBeGreaterThan(200);
  });
});
