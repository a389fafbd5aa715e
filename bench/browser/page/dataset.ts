import { rng, syntheticTexts } from '../../synthetic.js';

/**
 * The one data set every system gets: random unit vectors (Gaussian, then
 * normalised, so directions are uniform on the sphere) with a text each.
 * Deterministic from (dimension, size), so the page regenerates exactly the
 * same vectors after a reload instead of shipping hundreds of MB from Node.
 */
export interface Dataset {
  dimension: number;
  /** One Float32Array per item, each on its own buffer (cloning a view would clone its whole buffer). */
  vectors: Float32Array[];
  texts: string[];
  queries: { vector: Float32Array; text: string }[];
}

export function unitVectors(count: number, dimension: number, seed: number): Float32Array[] {
  const random = rng(seed);
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v = new Float32Array(dimension);
    let norm = 0;
    for (let j = 0; j < dimension; j += 2) {
      // Box–Muller: two independent standard normals per pair of uniforms.
      const r = Math.sqrt(-2 * Math.log(1 - random()));
      const t = 2 * Math.PI * random();
      v[j] = r * Math.cos(t);
      if (j + 1 < dimension) v[j + 1] = r * Math.sin(t);
    }
    for (let j = 0; j < dimension; j++) norm += v[j]! * v[j]!;
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < dimension; j++) v[j]! *= scale;
    out.push(v);
  }
  return out;
}

/** Query texts are three vocabulary words, so hybrid search has keyword matches to find. */
export function queryTexts(count: number): string[] {
  return syntheticTexts(count, 4242).map((t, i) => `${t.split(' ').slice(0, 3).join(' ')} q${i}`);
}

export function queries(count: number, dimension: number): { vector: Float32Array; text: string }[] {
  const vectors = unitVectors(count, dimension, 7_000 + dimension);
  return queryTexts(count).map((text, i) => ({ text, vector: vectors[i]! }));
}

export function dataset(size: number, dimension: number, queryCount: number): Dataset {
  return {
    dimension,
    vectors: unitVectors(size, dimension, 1_000_003 * dimension + size),
    texts: syntheticTexts(size, 11),
    queries: queries(queryCount, dimension),
  };
}

/** Exact top-k by dot product in double precision: the ground truth recall is measured against. */
export function exactTopK(vectors: Float32Array[], query: Float32Array, k: number): number[] {
  const best: { i: number; s: number }[] = [];
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    let s = 0;
    for (let j = 0; j < v.length; j++) s += v[j]! * query[j]!;
    if (best.length < k) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
    } else if (s > best[k - 1]!.s) {
      best[k - 1] = { i, s };
      best.sort((a, b) => b.s - a.s);
    }
  }
  return best.map((b) => b.i);
}

export function recallAt(k: number, found: number[], truth: number[]): number {
  const expected = new Set(truth.slice(0, k));
  return found.slice(0, k).filter((i) => expected.has(i)).length / k;
}
