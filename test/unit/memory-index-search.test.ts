import { describe, expect, it } from 'vitest';
import type { IndexDoc } from '../../src/search/index-doc.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { ordersByCosineAlone, resolveRanking } from '../../src/search/ranking.js';

/**
 * MemoryIndex.search takes the dense top k + 1 when the ranking orders by
 * cosine alone; otherwise boosts can lift a memory from below the dense top
 * k, and it bounds every row's full score instead. Both must give the true
 * top k (memory-index-exact.test.ts checks it against brute force).
 */
const DIM = 24;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function unitVector(next: () => number): Float32Array {
  const v = new Float32Array(DIM);
  let norm = 0;
  for (let i = 0; i < DIM; i++) {
    v[i] = next() - 0.5;
    norm += v[i]! * v[i]!;
  }
  for (let i = 0; i < DIM; i++) v[i]! /= Math.sqrt(norm);
  return v;
}

function doc(id: string, pinned = false): IndexDoc {
  return { id, userId: 'u', kind: 'fact', createdAt: 0, touchedAt: 0, tags: [], importance: 0.5, pinned, archived: false, times: [], fields: {} };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('ordersByCosineAlone', () => {
  it('holds only without keywords, boosts and per-type multipliers', () => {
    const pure = { denseWeight: 1, weights: { similarity: 2, importance: 0, recency: 0, pinned: 0 } };
    expect(ordersByCosineAlone(resolveRanking(pure))).toBe(true);
    expect(ordersByCosineAlone(resolveRanking())).toBe(false);
    expect(ordersByCosineAlone(resolveRanking({ ...pure, denseWeight: 0.9 }))).toBe(false);
    expect(ordersByCosineAlone(resolveRanking({ ...pure, weights: { ...pure.weights, pinned: 0.01 } }))).toBe(false);
    expect(ordersByCosineAlone(resolveRanking({ ...pure, sourceWeights: { episode: 2 } }))).toBe(false);
  });
});

describe('MemoryIndex.search', () => {
  const next = random(7);
  const index = new MemoryIndex(DIM);
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < 2_000; i++) {
    const vector = unitVector(next);
    vectors.set(`m${i}`, vector);
    index.upsert({ doc: doc(`m${i}`), text: `memory ${i}`, vector });
  }
  const query = unitVector(next);
  const byCosine = [...vectors].map(([id, v]) => ({ id, cosine: dot(v, query) })).sort((a, b) => b.cosine - a.cosine);

  it('with a cosine-only ranking returns exactly the brute-force top k', () => {
    const ranking = resolveRanking({ denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } });
    for (const k of [1, 10, 37]) {
      const hits = index.search('u', { vector: query, text: '' }, { k, ranking, now: 0 });
      expect(hits.map((h) => h.id)).toEqual(byCosine.slice(0, k).map((h) => h.id));
    }
  });

  it('with a pin boost still finds a pinned memory ranked just below the dense top k', () => {
    const lifted = byCosine[12]!.id;
    index.updateDoc(doc(lifted, true));
    const ranking = resolveRanking({ denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 1 } });
    const hits = index.search('u', { vector: query, text: '' }, { k: 10, ranking, now: 0 });
    expect(hits[0]!.id).toBe(lifted);
    expect(hits.slice(1).map((h) => h.id)).toEqual(byCosine.slice(0, 9).map((h) => h.id));
    index.updateDoc(doc(lifted, false));
  });
});
