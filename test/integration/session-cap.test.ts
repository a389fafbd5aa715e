import { describe, expect, it } from 'vitest';
import { ValidationError, type Memory, type RecallHit } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Per-session diversity (issue 21): recall's `maxPerSession` keeps at most
 * that many hits of one session, the next best of other sessions taking the
 * places, and is exact: the first k of the whole ranking with the cap applied.
 */
const { open } = memoryFixture();

const T0 = Date.UTC(2024, 0, 10, 9);
const PLACES = ['Lisbon', 'Porto', 'Paris', 'Rome', 'Berlin', 'Vienna', 'Prague', 'Oslo'];

/** Session s1 talks about trips at length; s2 and s3 mention one each; facts with no session mention two more. */
async function store(): Promise<Memory> {
  const m = await open({ clock: () => T0 + 30 * 86_400_000 });
  let i = 0;
  const turn = (sessionId: string, speaker: string, text: string) => ({ id: `t${String(i).padStart(3, '0')}`, sessionId, speaker, text, createdAt: T0 + i++ * 60_000 });
  const s1 = Array.from({ length: 40 }, (_, j) => turn('s1', j % 2 ? 'Bo' : 'Ana', `Our trip to ${PLACES[j % PLACES.length]} was lovely, the trip photos are great.`));
  await m.turns.addMany([...s1, turn('s2', 'Ana', 'I visited Madrid on a short trip last spring.'), turn('s2', 'Bo', 'Nice!'), turn('s3', 'Ana', 'The trip to Dublin was rainy.')]);
  await m.facts.addMany([{ id: 'f1', text: 'Ana took a trip to Athens.' }, { id: 'f2', text: 'Ana plans a trip to Cairo.' }]);
  return m;
}

/** The first k of `all` with at most `cap` per session (memories without one are never held back). */
function firstKCapped(all: RecallHit[], cap: number, k: number) {
  const n = new Map<string, number>();
  return all
    .filter((h) => {
      const s = h.memory.sessionId;
      if (s === null) return true;
      n.set(s, (n.get(s) ?? 0) + 1);
      return n.get(s)! <= cap;
    })
    .slice(0, k)
    .map((h) => ({ id: h.memory.id, score: h.score }));
}

describe('recall({ maxPerSession })', () => {
  it('is the first k of the whole ranking with at most that many per session, for every k and cap', async () => {
    const m = await store();
    for (const query of ['Where was the trip lovely?', 'trip photos', 'Which places did Ana visit on a trip?']) {
      const all = await m.recall(query, { k: 1000, touch: false });
      expect(all).toHaveLength(45);
      for (const cap of [1, 2, 3, 40]) {
        for (const k of [1, 3, 5, 8]) {
          const hits = await m.recall(query, { k, maxPerSession: cap, touch: false });
          expect(hits.map((h) => ({ id: h.memory.id, score: h.score }))).toEqual(firstKCapped(all, cap, k));
        }
      }
      // Fewer than k when the sessions and the memories without one run out: s1, s2 and s3 give one each, plus f1 and f2.
      expect((await m.recall(query, { k: 10, maxPerSession: 1, touch: false })).map((h) => h.memory.sessionId ?? 'none').sort()).toEqual(['none', 'none', 's1', 's2', 's3']);
    }
  });

  it('lets the other sessions in: Madrid and Dublin reach a top 5 that s1 filled alone', async () => {
    const m = await store();
    const plain = await m.recall('Where was the trip lovely?', { k: 5, types: ['turn'], touch: false });
    const capped = await m.recall('Where was the trip lovely?', { k: 5, types: ['turn'], maxPerSession: 2, touch: false });
    expect(plain.map((h) => h.memory.sessionId)).toEqual(['s1', 's1', 's1', 's1', 's1']);
    expect(capped.map((h) => h.memory.sessionId).sort()).toEqual(['s1', 's1', 's2', 's2', 's3']);
    expect(capped.slice(0, 2)).toEqual(plain.slice(0, 2));
    expect(capped.map((h) => h.memory.text).join(' ')).toMatch(/Madrid/);
    expect(capped.map((h) => h.memory.text).join(' ')).toMatch(/Dublin/);
  });

  it('rejects a cap that is not a positive whole number with a typed error', async () => {
    const m = await store();
    for (const bad of [0, -1, 1.5, Number.NaN, '2']) {
      await expect(m.recall('trip', { maxPerSession: bad as number })).rejects.toThrow(ValidationError);
    }
    await expect(m.recall('trip', { maxPerSession: 0 })).rejects.toThrow(/maxPerSession/);
  });
});
