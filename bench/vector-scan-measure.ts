/**
 * The measuring half of bench/vector-scan.ts: plain TypeScript over the SDK's
 * VectorMatrix, so the same code runs in Node and, bundled, in a page.
 */
import { VectorMatrix } from '../src/search/vector-matrix.js';
import { F32Floor } from './floor/f32-floor.js';
import { rng } from './synthetic.js';

export const K = 10;
export const QUERIES = 200;
export const WARMUP = 20;

export interface ScanFigures {
  n: number;
  d: number;
  simd: boolean;
  /** The floor: a plain WebAssembly SIMD f32 scan (bench/floor/f32-floor.ts). */
  floor: { p50: number; p95: number; bytes: number };
  /** The same floor's tuned JS loop. */
  floorJs: { p50: number; p95: number };
  /** VectorMatrix scoring every row exactly (quantize: false). */
  f32: { p50: number; p95: number; bytes: number };
  /** VectorMatrix bounding rows from their high halves, then scoring the candidates exactly (the default). */
  int8: { p50: number; p95: number; rescoredP50: number; rescoredMax: number; bytes: number };
  queries: number;
  /** Queries where the two VectorMatrix paths differ (ids or float scores). */
  differ: number;
  /** Queries where the default path's ids differ from the floor's. */
  differFloor: number;
}

/**
 * Builds both matrices and the floors over the same n random unit rows of d
 * dims (the matrices grown one row at a time, as inserts grow them) and
 * times topK(10) on each, query by query.
 */
export function measureScan(n: number, d: number, simd: boolean): ScanFigures {
  const random = rng(n + d);
  const f32 = new VectorMatrix(d, { quantize: false, simd });
  const int8 = new VectorMatrix(d, { quantize: true, simd });
  const floor = new F32Floor(d, n, 'wasm');
  const floorJs = new F32Floor(d, n, 'js');
  for (let i = 0; i < n; i++) {
    const v = randomUnit(d, random);
    f32.upsert(`m${i}`, v);
    int8.upsert(`m${i}`, v);
    floor.add(v);
    floorJs.add(v);
  }
  const queries = Array.from({ length: WARMUP + QUERIES }, () => randomUnit(d, random));
  const floorTimes: number[] = [];
  const floorJsTimes: number[] = [];
  const f32Times: number[] = [];
  const int8Times: number[] = [];
  const rescored: number[] = [];
  let differ = 0;
  let differFloor = 0;
  for (const [i, q] of queries.entries()) {
    const [floorIds, floorMs] = time(() => floor.topK(q, K));
    const [, floorJsMs] = time(() => floorJs.topK(q, K));
    const [want, f32Ms] = time(() => f32.topK(q, K));
    const [got, int8Ms] = time(() => int8.topK(q, K));
    if (JSON.stringify(got) !== JSON.stringify(want)) differ++;
    if (got.map((h) => h.id).join() !== floorIds.map((r) => `m${r}`).join()) differFloor++;
    if (i < WARMUP) continue;
    floorTimes.push(floorMs);
    floorJsTimes.push(floorJsMs);
    f32Times.push(f32Ms);
    int8Times.push(int8Ms);
    rescored.push(int8.lastRescored);
  }
  for (const list of [floorTimes, floorJsTimes, f32Times, int8Times, rescored]) list.sort((a, b) => a - b);
  return {
    n,
    d,
    simd: int8.simd,
    floor: { p50: percentile(floorTimes, 50), p95: percentile(floorTimes, 95), bytes: floor.bytes },
    floorJs: { p50: percentile(floorJsTimes, 50), p95: percentile(floorJsTimes, 95) },
    f32: { p50: percentile(f32Times, 50), p95: percentile(f32Times, 95), bytes: f32.bytes },
    int8: { p50: percentile(int8Times, 50), p95: percentile(int8Times, 95), rescoredP50: percentile(rescored, 50), rescoredMax: rescored.at(-1)!, bytes: int8.bytes },
    queries: queries.length,
    differ,
    differFloor,
  };
}

/** A uniformly random unit vector (normalised Gaussian). */
function randomUnit(d: number, random: () => number): Float32Array {
  const v = new Float32Array(d);
  let sum = 0;
  for (let i = 0; i < d; i++) {
    const g = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    v[i] = g;
    sum += g * g;
  }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < d; i++) v[i]! *= inv;
  return v;
}

function time<T>(run: () => T): [T, number] {
  const started = performance.now();
  const result = run();
  return [result, performance.now() - started];
}

/** Nearest-rank percentile of sorted values (as bench/support.ts, which imports Node modules a page cannot load). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
