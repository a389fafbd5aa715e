import { describe, expect, it } from 'vitest';
import { resolveRanking, scoreOf, type Ranking } from '../../src/search/ranking.js';

/**
 * The floor the multipliers act on (ranking.boostFloor): a boost of 1 + b
 * lifts a memory by at least b × boostFloor whatever its relevance, so a
 * named speaker's weak match can pass a slightly better match by someone
 * else, which a pure ratio never lets it do; 0 gives the pure ratio back.
 */
const NOW = Date.UTC(2024, 2, 10);
const turn = (cosine: number, named: boolean) => ({ kind: 'turn' as const, cosine, keyword: 0, importance: 0, pinned: false, dated: false, named, touchedAt: NOW });
/** Dense only, no small weights: what is left is relevance, the floor and the speaker's multiplier. */
const ranking = (boostFloor: number): Ranking => ({
  ...resolveRanking({ denseWeight: 1, weights: { importance: 0, recency: 0, pinned: 0 }, speakerBoost: 0.2, boostFloor }),
  namedSpeakers: new Set(['Ana']),
});

describe('boostFloor', () => {
  it('lifts a boosted memory by at least boost × floor, at any relevance', () => {
    const r = ranking(0.1);
    for (const cosine of [0, 0.05, 0.3, 0.9]) {
      const lift = scoreOf(r, turn(cosine, true), NOW).score - scoreOf(r, turn(cosine, false), NOW).score;
      expect(lift).toBeGreaterThanOrEqual(0.2 * 0.1 - 1e-12);
      expect(lift).toBeCloseTo(0.2 * (cosine + 0.1), 12);
    }
    // A named speaker's weak match (cosine 0.05) passes another speaker's 0.07: 1.2 × 0.15 = 0.18 > 0.17.
    expect(scoreOf(r, turn(0.05, true), NOW).score).toBeGreaterThan(scoreOf(r, turn(0.07, false), NOW).score);
  });

  it('at 0 every boost is a pure ratio: the weak match stays behind', () => {
    const r = ranking(0);
    expect(scoreOf(r, turn(0, true), NOW).score).toBe(0);
    expect(scoreOf(r, turn(0.05, true), NOW).score).toBeLessThan(scoreOf(r, turn(0.07, false), NOW).score);
    expect(scoreOf(r, turn(0.5, true), NOW).score).toBeCloseTo(1.2 * 0.5, 12);
  });

  it('defaults to 0.1 and is part of every score', () => {
    expect(resolveRanking().boostFloor).toBe(0.1);
    expect(scoreOf(resolveRanking({ weights: { importance: 0, recency: 0, pinned: 0 } }), { ...turn(0, false), kind: 'fact' }, NOW).score).toBeCloseTo(0.1, 12);
  });
});
