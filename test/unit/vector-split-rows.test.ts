import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { largestF32AtMost, largestF32Below } from '../../src/search/simd/f32-rounding.js';
import { SplitRows } from '../../src/search/simd/split-rows.js';
import { VectorMatrix } from '../../src/search/vector-matrix.js';
import { rng } from '../../bench/synthetic.js';

/**
 * Rows stored as split halves (simd/split-rows.ts). The exact scores are
 * the f32 dot products of the vectors as given (checked against an
 * independent emulation of the kernel's summation order), and the scan that
 * bounds rows from their high halves and scores only the candidates exactly
 * must return what scoring every row returns: the same ids, in the same
 * order, with the same float scores. Every case runs both paths side by side.
 */

type Hit = { id: string; score: number };

function unit(d: number, random: () => number): Float32Array {
  const v = Float32Array.from({ length: d }, () => random() * 2 - 1);
  let sum = 0;
  for (const x of v) sum += x * x;
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  return v.map((x) => x * inv);
}

/** The same matrix twice: every row scored exactly, and the bounds scan with an exact re-rank. */
function pair(d: number, simd: boolean, initialCapacity = 4) {
  const f32 = new VectorMatrix(d, { quantize: false, simd, initialCapacity });
  const split = new VectorMatrix(d, { quantize: true, simd, initialCapacity });
  expect(split.quantized).toBe(true);
  expect(f32.quantized).toBe(false);
  return {
    f32,
    split,
    upsert(id: string, v: Float32Array) {
      f32.upsert(id, v);
      split.upsert(id, v);
    },
    remove(id: string) {
      expect(split.remove(id)).toBe(f32.remove(id));
    },
    /** Both paths' results, asserted identical (bit-for-bit scores, same order). */
    topK(q: Float32Array, k: number, accept?: (id: string) => boolean): Hit[] {
      const want = f32.topK(q, k, accept);
      const got = split.topK(q, k, accept);
      expect(got).toEqual(want);
      got.forEach((h, i) => expect(Object.is(h.score, want[i]!.score)).toBe(true));
      return got;
    },
  };
}

/** f32 emulation of split-rows.wat `scores`: two f32x4 accumulators over steps of 8 (zero-padded to the stride), lanes summed (0 + 1) + (2 + 3). */
function simdDot(v: Float32Array, q: Float32Array, stride: number): number {
  const f = Math.fround;
  const a = [0, 0, 0, 0];
  const b = [0, 0, 0, 0];
  for (let j = 0; j < stride; j += 8) {
    for (let l = 0; l < 4; l++) {
      a[l] = f(a[l]! + f((v[j + l] ?? 0) * (q[j + l] ?? 0)));
      b[l] = f(b[l]! + f((v[j + 4 + l] ?? 0) * (q[j + 4 + l] ?? 0)));
    }
  }
  const s = a.map((x, l) => f(x + b[l]!));
  return f(f(s[0]! + s[1]!) + f(s[2]! + s[3]!));
}

/** The JS fallback: four f64 sums over every fourth component, added, rounded once to f32. */
function f64Dot(v: Float32Array, q: Float32Array): number {
  const s = [0, 0, 0, 0];
  for (let j = 0; j < v.length; j++) s[j % 4]! += v[j]! * q[j]!;
  return Math.fround(s[0]! + s[1]! + s[2]! + s[3]!);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Every row's exact f32 kernel score for `q` (the f32 scan with k = n). */
function exactScores(m: VectorMatrix, q: Float32Array): Map<string, number> {
  return new Map(m.topK(q, m.size).map((h) => [h.id, h.score]));
}

describe('bounds from the high halves (SplitRows)', () => {
  for (const simd of [true, false]) {
    for (const d of [1, 7, 16, 128, 384, 768]) {
      it(`lo ≤ exact f32 score ≤ hi for unit, scaled, sparse, tiny and zero rows (simd ${simd}, ${d} dims)`, () => {
        const random = rng(1000 + d);
        const rows: Float32Array[] = [];
        for (let i = 0; i < 200; i++) rows.push(unit(d, random));
        rows.push(new Float32Array(d)); // zero
        rows.push(unit(d, random).map((x) => x * 1e-30)); // tiny, still normal
        rows.push(unit(d, random).map((x) => x * 1e-42)); // subnormal components
        rows.push(unit(d, random).map((x) => x * 3e15)); // large norm
        rows.push(Float32Array.from({ length: d }, (_, i) => (i === d - 1 ? 1 : 0))); // one-hot
        rows.push(Float32Array.from({ length: d }, (_, i) => (i % 2 ? 0.5 : -0.5 + 1e-7))); // near the rounding midpoint
        const queries = [unit(d, random), rows[3]!, rows[0]!.map((x) => -x), new Float32Array(d), rows[202]!, rows[203]!];
        for (const exactSimd of [true, false]) {
          const exact = new VectorMatrix(d, { quantize: false, simd: exactSimd });
          const q8 = new SplitRows(d, rows.length, { simd });
          rows.forEach((v, i) => {
            exact.upsert(`r${i}`, v);
            expect(q8.write(i, v)).toBe(true);
          });
          for (const q of queries) {
            const scores = exactScores(exact, q);
            const { lo, hi } = q8.bounds(q, rows.length)!;
            rows.forEach((_, i) => {
              const s = scores.get(`r${i}`)!;
              expect(lo[i]!).toBeLessThanOrEqual(s);
              expect(hi[i]!).toBeGreaterThanOrEqual(s);
            });
          }
        }
      });
    }

    it(`bounds are tight enough to prune (simd ${simd}): unit rows at 128 and 384 dims within ±0.01`, () => {
      const random = rng(5);
      for (const d of [128, 384]) {
        const rows = new SplitRows(d, 100, { simd });
        for (let i = 0; i < 100; i++) rows.write(i, unit(d, random));
        const { lo, hi } = rows.bounds(unit(d, random), 100)!;
        for (let i = 0; i < 100; i++) expect(hi[i]! - lo[i]!).toBeLessThan(0.02);
      }
    });

    it(`exact scores are the f32 dot products of the vectors as given, summed in the kernel's order (simd ${simd})`, () => {
      const random = rng(6);
      for (const d of [1, 7, 16, 100, 384]) {
        const stride = Math.ceil(d / 16) * 16;
        const vectors = [unit(d, random), unit(d, random).map((x) => x * 1e-42), Float32Array.from({ length: d }, (_, i) => (i % 3 ? -0 : 1e-3 * (i + 1))), unit(d, random).map((x) => x * 1e20)];
        const m = new VectorMatrix(d, { simd, quantize: false });
        vectors.forEach((v, i) => m.upsert(`v${i}`, v));
        const q = unit(d, random);
        const got = m.scoresFor(q, [0, 1, 2, 3]);
        vectors.forEach((v, i) => {
          expect(Object.is(got[i]!, simd ? simdDot(v, q, stride) : f64Dot(v, q))).toBe(true);
          // The stored vector comes back bit for bit (signed zeros, subnormals).
          expect(new Uint32Array(m.vector(`v${i}`)!.buffer)).toEqual(new Uint32Array(v.buffer));
        });
      }
    });
  }

  for (const simd of [true, false]) {
    it(`writeMany stores every row bit for bit, across blocks, over rows that held other values (simd ${simd})`, () => {
      for (const d of [1, 7, 8, 13, 100, 384]) {
        const random = rng(d);
        const n = 5000;
        const rows = new SplitRows(d, n, { simd });
        // Random bit patterns: every kind of f32 (NaN payloads, infinities, subnormals, -0) at some component.
        const bits = Uint32Array.from({ length: n * d }, () => Math.floor(random() * 2 ** 32));
        const vectors = new Float32Array(bits.buffer);
        rows.writeMany(0, new Float32Array(n * d).fill(-1), n);
        const unbounded = [...rows.writeMany(0, vectors, 100), ...rows.writeMany(100, vectors.subarray(100 * d), n - 100).map((i) => i + 100)];
        const cannotBound = (i: number) => !(Math.hypot(...vectors.subarray(i * d, (i + 1) * d)) <= 2 ** 60);
        expect(unbounded).toEqual(Array.from({ length: n }, (_, i) => i).filter(cannotBound));
        const wrong: string[] = [];
        for (let i = 0; i < n; i++) {
          const got = new Uint32Array(rows.read(i).buffer);
          for (let j = 0; j < d; j++) if (got[j] !== bits[i * d + j]) wrong.push(`row ${i} component ${j} of ${d} dims`);
        }
        const q = Float32Array.from({ length: d }, () => random() - 0.5);
        rows.placeQuery(q);
        const scores = rows.scores(n);
        for (let i = 0; i < n; i++) {
          const v = vectors.subarray(i * d, (i + 1) * d);
          if (!Object.is(scores[i], simd ? simdDot(v, q, rows.stride) : f64Dot(v, q))) wrong.push(`score of row ${i} of ${d} dims`);
        }
        expect(wrong).toEqual([]);
      }
    });
  }

  for (const simd of [true, false]) {
    it(`above keeps the rows whose upper bound is not ≤ an f64 threshold, exactly as JS compares them, and the largest bound (simd ${simd})`, () => {
      const d = 24;
      const n = 3000;
      const random = rng(77);
      const rows = new SplitRows(d, n, { simd });
      const vectors = new Float32Array(n * d).map(() => random() * 2 - 1);
      rows.writeMany(0, vectors, n);
      const bounds = rows.bounds(Float32Array.from({ length: d }, () => random() - 0.5), n)!;
      const hi = Float32Array.from(bounds.hi);
      const f64 = new Float64Array(1);
      const bits = new BigInt64Array(f64.buffer);
      // The f64 values next to x: thresholds an f32 rounding of the threshold would get wrong.
      const beside = (x: number, step: bigint) => {
        f64[0] = x;
        bits[0] = bits[0]! + (x >= 0 ? step : -step);
        return f64[0]!;
      };
      const thresholds = [Number.NaN, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 0, -0, 3.4e38, -3.4e38, 1e-45, -1e-45];
      for (let i = 0; i < 40; i++) {
        const h = hi[Math.floor(random() * n)]!;
        thresholds.push(h, beside(h, 1n), beside(h, -1n), (h + Math.fround(h * (1 + 2 ** -23))) / 2);
      }
      for (const t of thresholds) {
        const expected = [...hi.keys()].filter((r) => !(hi[r]! <= t));
        const got = rows.above(n, t);
        expect([...got.rows], `threshold ${t}`).toEqual(expected);
        expect(got.largest).toBe(Math.max(...hi));
      }
      // None: −∞, as a walk that found nothing leaves it.
      expect(rows.above(0, 0)).toEqual({ rows: new Int32Array(0), largest: Number.NEGATIVE_INFINITY });
    });
  }

  it('largestF32AtMost is the largest f32 at most its argument', () => {
    const random = rng(5);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const cases = [0, -0, 1, -1, 1e-46, -1e-46, 3.5e38, -3.5e38, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, ...Array.from({ length: 2000 }, () => (random() - 0.5) * 10 ** Math.floor(random() * 20 - 10))];
    for (const x of cases) {
      const down = largestF32AtMost(x);
      expect(Math.fround(down)).toBe(down);
      expect(down <= x).toBe(true);
      // The next f32 above it is above x.
      f32[0] = down;
      if (down === Number.POSITIVE_INFINITY) continue;
      // Above ±0 (in value) comes 2⁻¹⁴⁹.
      if (down === 0) u32[0] = 1;
      else if (down > 0) u32[0]!++;
      else u32[0]!--;
      expect(f32[0]! > x, `${x}`).toBe(true);
    }
    expect(largestF32AtMost(Number.NaN)).toBeNaN();
  });

  it('largestF32Below is the f32 just below an f32, and the largest f32 below any other value', () => {
    const random = rng(6);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const up = (x: number) => {
      f32[0] = x;
      if (x === 0) u32[0] = 1;
      else if (x > 0) u32[0]!++;
      else u32[0]!--;
      return f32[0]!;
    };
    const randoms = Array.from({ length: 2000 }, () => (random() - 0.5) * 10 ** Math.floor(random() * 20 - 10));
    const cases = [0, -0, 1, -1, 1.4e-45, -1.4e-45, 1e-46, 3.4028234663852886e38, -3.4028234663852886e38, Number.POSITIVE_INFINITY, ...randoms, ...randoms.map(Math.fround)];
    for (const x of cases) {
      const below = largestF32Below(x);
      expect(Math.fround(below)).toBe(below);
      expect(below < x, `${x}`).toBe(true);
      // Nothing f32 lies between: the next f32 up is x itself or above it.
      expect(up(below) >= x, `${x}`).toBe(true);
    }
    expect(largestF32Below(Number.NEGATIVE_INFINITY)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('refuses rows and queries it cannot bound: non-finite components, norms above 2^60', () => {
    const q8 = new SplitRows(4, 4);
    expect(q8.write(0, Float32Array.from([1, Number.NaN, 0, 0]))).toBe(false);
    expect(q8.write(1, Float32Array.from([Number.POSITIVE_INFINITY, 0, 0, 0]))).toBe(false);
    expect(q8.write(2, Float32Array.from([2 ** 61, 0, 0, 0]))).toBe(false);
    expect(q8.write(3, Float32Array.from([2 ** 59, 0, 0, 0]))).toBe(true);
    expect(q8.bounds(Float32Array.from([0, 0, Number.NaN, 0]), 4)).toBeUndefined();
    expect(q8.bounds(Float32Array.from([0, 0, 2 ** 61, 0]), 4)).toBeUndefined();
  });

  it('documents its memory: 4·d + 20 bytes a row at a multiple of 16, about 1.01x the raw f32 at 384-d', () => {
    expect(SplitRows.bytesPerRow(128)).toBe(532);
    expect(SplitRows.bytesPerRow(384)).toBe(1556);
    expect(SplitRows.bytesPerRow(7)).toBe(84);
    // What a matrix holds, grown one row at a time: its buffer, with at most one block (2,048 rows) spare once past
    // the doubling blocks (4,032 rows). The JS fallback's ArrayBuffer grows by a quarter.
    for (const simd of [true, false]) {
      const m = new VectorMatrix(384, { simd });
      const random = rng(7);
      const n = 10_000;
      for (let i = 0; i < n; i++) m.upsert(`r${i}`, unit(384, random));
      const capacity = 4032 + 3 * 2048;
      expect(m.bytes).toBeGreaterThanOrEqual(capacity * SplitRows.bytesPerRow(384));
      if (simd) expect(m.bytes).toBeLessThan(capacity * SplitRows.bytesPerRow(384) + 384 * 4 + 65_536);
      else expect(m.bytes).toBeLessThan(1.25 * capacity * SplitRows.bytesPerRow(384) + 384 * 4);
      expect(m.bytes / (n * 384 * 4)).toBeLessThan(simd ? 1.04 : 1.3);
    }
  });
});

describe('VectorMatrix: the bounds scan with an exact re-rank equals scoring every row', () => {
  for (const simd of [true, false]) {
    for (const d of [1, 7, 100, 128, 384, 768]) {
      it(`random rows, deletes that move rows, overwrites, growth, k from 1 to > n (simd ${simd}, ${d} dims)`, () => {
        const random = rng(d * 7 + (simd ? 1 : 0));
        const m = pair(d, simd, 2);
        const n = d >= 384 ? 700 : 1500;
        for (let i = 0; i < n; i++) m.upsert(`r${i}`, unit(d, random));
        for (let i = 0; i < n; i += 3) m.remove(`r${i}`);
        for (let i = 1; i < n; i += 7) m.upsert(`r${i}`, unit(d, random)); // overwrite in place
        m.upsert('r0', unit(d, random)); // re-insert a deleted id (appended)
        let pruned = 0;
        for (let t = 0; t < 15; t++) {
          const q = unit(d, random);
          for (const k of [1, 10, 50]) {
            m.topK(q, k);
            if (m.split.lastRescored < m.split.size) pruned++;
          }
        }
        m.topK(unit(d, random), m.split.size);
        m.topK(unit(d, random), m.split.size + 5);
        if (d > 1) expect(pruned).toBeGreaterThan(0); // the bounds path did avoid re-scoring everything
        // The query equal to a stored row finds it first (at 1 dimension every unit row is ±1: ties).
        const v = m.split.vector('r2')!;
        if (d > 1) expect(m.topK(v, 3)[0]!.id).toBe('r2');
      });
    }

    it(`past the first 2,048 rows the kernel hands the walk only rows that can still win, and nothing is lost (simd ${simd})`, () => {
      const random = rng(21 + (simd ? 1 : 0));
      const d = 16;
      const n = 6_000;
      const m = pair(d, simd, 2);
      const q = unit(d, random);
      // Rows in rising similarity to q for the first half (the first rows set a low bar, most later rows beat it),
      // then random rows; copies of q before and after row 2,048 (exact ties across the boundary).
      const rising = Array.from({ length: n / 2 }, () => unit(d, random)).sort((a, b) => dot(a, q) - dot(b, q));
      rising.forEach((v, i) => m.upsert(`r${i}`, v));
      for (let i = n / 2; i < n; i++) m.upsert(`r${i}`, unit(d, random));
      for (const at of [100, 2_047, 2_048, 2_049, 5_999]) m.upsert(`r${at}`, q);
      for (const k of [1, 5, 10, 50]) {
        expect(m.topK(q, k)[0]!.id).toBe('r100');
        m.topK(unit(d, random), k);
      }
      // Random queries: the kernel's threshold leaves the walk a few hundred rows, not all 6,000.
      const walked: number[] = [];
      for (let t = 0; t < 10; t++) {
        m.topK(unit(d, random), 10);
        walked.push(m.split.lastWalked);
      }
      expect(Math.max(...walked)).toBeLessThan(2_048 + 1_000);
      // A filter that rejects every one of the first rows: the walk goes on in JS until it has k accepted rows.
      m.topK(q, 10, (id) => Number(id.slice(1)) > 3_000);
      m.topK(unit(d, random), 10, (id) => Number(id.slice(1)) > 5_990);
      // A filter that accepts one row in a hundred, and k above what passes it.
      m.topK(unit(d, random), 10, (id) => id.endsWith('00'));
      m.topK(q, 100, (id) => id.endsWith('00'));
      // Deletes move the last rows into holes; growth past the prefix again.
      for (let i = 0; i < n; i += 5) m.remove(`r${i}`);
      for (let i = 0; i < 500; i++) m.upsert(`s${i}`, unit(d, random));
      for (const k of [1, 10, 40]) m.topK(unit(d, random), k);
      m.topK(q, 10);
    });

    it(`an overwritten row is re-quantised (simd ${simd})`, () => {
      const random = rng(11);
      const m = pair(64, simd);
      for (let i = 0; i < 300; i++) m.upsert(`r${i}`, unit(64, random));
      const q = unit(64, random);
      m.upsert('r150', q);
      expect(m.topK(q, 5)[0]).toEqual({ id: 'r150', score: expect.closeTo(1, 5) });
      m.upsert('r150', q.map((x) => -x));
      expect(m.topK(q, 300).at(-1)!.id).toBe('r150');
      expect(m.topK(q, 5).map((h) => h.id)).not.toContain('r150');
    });

    it(`exact duplicates: ties resolved identically, the row stored first wins (simd ${simd})`, () => {
      const random = rng(12);
      const m = pair(32, simd);
      const v = unit(32, random);
      for (let i = 0; i < 30; i++) m.upsert(`dup${i}`, v);
      for (let i = 0; i < 30; i++) m.upsert(`other${i}`, unit(32, random));
      const hits = m.topK(v, 10);
      expect(hits.map((h) => h.id)).toEqual(Array.from({ length: 10 }, (_, i) => `dup${i}`));
      m.remove('dup3'); // the last row (other29) moves into dup3's slot
      m.remove('dup0');
      m.topK(v, 10);
      m.topK(v, 29);
      m.topK(v, 10, (id) => id !== 'dup5');
    });

    it(`near-ties a few ulps apart, below the high halves' resolution (simd ${simd})`, () => {
      const random = rng(13);
      const d = 128;
      const m = pair(d, simd);
      const base = unit(d, random);
      for (let i = 0; i < 200; i++) {
        const v = Float32Array.from(base);
        // Nudge one component by i ulps: scores differ in the last bits, the high halves do not.
        const j = i % d;
        const bits = new Int32Array(v.buffer);
        bits[j]! += (i % 2 ? 1 : -1) * (1 + (i >> 1));
        m.upsert(`near${i}`, v);
      }
      for (let i = 0; i < 500; i++) m.upsert(`far${i}`, unit(d, random));
      for (const k of [1, 5, 10, 100, 200]) m.topK(base, k);
      m.topK(base.map((x, i) => (i === 0 ? x + 1e-3 : x)), 10);
      m.topK(base, 10, (id) => id.endsWith('7'));
    });

    it(`filters: accept sees ids, rejects all, keeps few, keeps most (simd ${simd})`, () => {
      const random = rng(14);
      const m = pair(128, simd);
      for (let i = 0; i < 2000; i++) m.upsert(`r${i}`, unit(128, random));
      const q = unit(128, random);
      expect(m.topK(q, 10, () => false)).toEqual([]);
      const few = m.topK(q, 10, (id) => id === 'r5' || id === 'r1999' || id === 'r700');
      expect(few.map((h) => h.id).sort()).toEqual(['r1999', 'r5', 'r700']);
      const most = m.topK(q, 10, (id) => !id.endsWith('3'));
      expect(most.every((h) => !h.id.endsWith('3'))).toBe(true);
      m.topK(q, 10, (id) => Number(id.slice(1)) % 97 === 0);
      // accept is asked only about ids of stored rows, never more than once per row.
      const asked = new Map<string, number>();
      m.split.topK(q, 10, (id) => {
        asked.set(id, (asked.get(id) ?? 0) + 1);
        return true;
      });
      expect([...asked.values()].every((c) => c === 1)).toBe(true);
      expect([...asked.keys()].every((id) => m.split.has(id))).toBe(true);
    });

    it(`zero vectors: zero rows, a zero query (simd ${simd})`, () => {
      const random = rng(15);
      const m = pair(16, simd);
      for (let i = 0; i < 50; i++) m.upsert(`z${i}`, new Float32Array(16));
      for (let i = 0; i < 50; i++) m.upsert(`r${i}`, unit(16, random));
      m.topK(unit(16, random), 10);
      m.topK(unit(16, random), 80);
      const zero = m.topK(new Float32Array(16), 10);
      expect(zero.every((h) => h.score === 0)).toBe(true);
      expect(zero.map((h) => h.id)).toEqual(Array.from({ length: 10 }, (_, i) => `z${i}`));
    });

    it(`rows it cannot bound make every row scored exactly until they are gone (simd ${simd})`, () => {
      const random = rng(16);
      const m = pair(8, simd);
      for (let i = 0; i < 500; i++) m.upsert(`r${i}`, unit(8, random));
      const q = unit(8, random);
      m.topK(q, 5);
      expect(m.split.lastRescored).toBeLessThan(500);
      m.upsert('huge', Float32Array.from([1e30, 0, 0, 0, 0, 0, 0, 0]));
      m.topK(q, 5);
      expect(m.split.lastRescored).toBe(501);
      m.upsert('huge', unit(8, random)); // overwritten with a boundable row
      m.topK(q, 5);
      expect(m.split.lastRescored).toBeLessThan(501);
      m.upsert('nan', Float32Array.from([Number.NaN, 0, 0, 0, 0, 0, 0, 0]));
      expect(m.split.topK(q, 5).length).toBe(5);
      expect(m.split.lastRescored).toBe(502);
      m.remove('nan');
      m.topK(q, 5);
      expect(m.split.lastRescored).toBeLessThan(501);
      // An unboundable query is scored exactly on every row too.
      m.split.topK(Float32Array.from([Number.POSITIVE_INFINITY, 0, 0, 0, 0, 0, 0, 0]), 5);
      expect(m.split.lastRescored).toBe(501);
      // So does a query shorter than the dimension (zero-padded).
      m.topK(q.subarray(0, 7), 5);
      expect(m.split.lastRescored).toBe(501);
    });

    it(`random operation sequences over a small palette (duplicates, ties, deletes) agree (simd ${simd})`, () => {
      const d = 12;
      const random = rng(17);
      const palette = Array.from({ length: 6 }, () => unit(d, random));
      palette.push(new Float32Array(d), palette[0]!.map((x) => x * 0.5));
      const vector = fc.integer({ min: 0, max: palette.length - 1 }).map((i) => palette[i]!);
      const op = fc.oneof(
        fc.record({ kind: fc.constant('upsert' as const), id: fc.integer({ min: 0, max: 40 }), v: vector }),
        fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 0, max: 40 }) }),
        fc.record({
          kind: fc.constant('query' as const),
          q: fc.oneof(vector, fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: d, maxLength: d }).map((a) => Float32Array.from(a))),
          k: fc.integer({ min: 1, max: 50 }),
          mod: fc.integer({ min: 1, max: 5 }),
        }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
          const m = pair(d, simd, 1);
          for (const o of ops) {
            if (o.kind === 'upsert') m.upsert(`x${o.id}`, o.v);
            else if (o.kind === 'remove') m.remove(`x${o.id}`);
            else {
              m.topK(o.q, o.k);
              m.topK(o.q, o.k, (id) => Number(id.slice(1)) % o.mod === 0);
            }
          }
        }),
        { numRuns: 150, seed: 42 },
      );
    });
  }

  it('defaults to the bounds scan where SIMD runs, to exact scores of every row in the JS fallback', () => {
    expect(new VectorMatrix(128).quantized).toBe(new VectorMatrix(128).simd);
    expect(new VectorMatrix(128, { simd: false }).quantized).toBe(false);
    expect(new VectorMatrix(128, { simd: false, quantize: true }).quantized).toBe(true);
  });
});
