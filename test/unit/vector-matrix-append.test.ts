import { describe, expect, it } from 'vitest';
import { SplitRows } from '../../src/search/simd/split-rows.js';
import { VectorMatrix } from '../../src/search/vector-matrix.js';
import { rng } from '../../bench/synthetic.js';

/**
 * The bulk load path the index snapshot uses at open (VectorMatrix.append):
 * rows appended in blocks, with their bounds metadata restored from
 * `quantizedRows` instead of recomputed, must answer exactly as the same rows
 * upserted one by one (same ids, same order, bit-identical scores), and as
 * scoring every row.
 */

function unit(d: number, random: () => number): Float32Array {
  const v = Float32Array.from({ length: d }, () => random() * 2 - 1);
  let sum = 0;
  for (const x of v) sum += x * x;
  return v.map((x) => x / Math.sqrt(sum));
}

function concat(rows: Float32Array[], d: number): Float32Array {
  const out = new Float32Array(rows.length * d);
  rows.forEach((r, i) => out.set(r, i * d));
  return out;
}

function expectSameAnswers(got: VectorMatrix, want: VectorMatrix, queries: Float32Array[], accept?: (id: string) => boolean): void {
  for (const q of queries) {
    for (const k of [1, 10, 60]) {
      const a = got.topK(q, k, accept);
      const b = want.topK(q, k, accept);
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      a.forEach((h, i) => expect(Object.is(h.score, b[i]!.score)).toBe(true));
    }
  }
}

describe('VectorMatrix.append (bulk load with the bounds metadata restored)', () => {
  for (const simd of [true, false]) {
    for (const d of [7, 100, 128, 384]) {
      it(`restored rows answer exactly as upserted rows and as scoring every row (simd ${simd}, ${d} dims)`, () => {
        const random = rng(d * 13 + (simd ? 1 : 0));
        const n = 900;
        const ids = Array.from({ length: n }, (_, i) => `r${i}`);
        const rows = ids.map(() => unit(d, random));
        rows[5] = new Float32Array(d); // a zero row
        rows[6] = Float32Array.from({ length: d }, (_, i) => (i === 0 ? 1e30 : 0)); // one the bounds cannot cover
        rows[7] = rows[8]!.slice(); // an exact duplicate: ties must break the same way

        const oneByOne = new VectorMatrix(d, { simd, quantize: true });
        ids.forEach((id, i) => oneByOne.upsert(id, rows[i]!));
        const f32 = new VectorMatrix(d, { simd, quantize: false });
        ids.forEach((id, i) => f32.upsert(id, rows[i]!));

        // Saved in two blocks (as the snapshot does), restored into a fresh matrix.
        const restored = new VectorMatrix(d, { simd, quantize: true });
        for (const [start, end] of [
          [0, 500],
          [500, n],
        ] as const) {
          const run = oneByOne.quantizedRows(ids.slice(start, end))!;
          expect(run.layout).toBe(SplitRows.layoutOf(d));
          if (start === 0) expect(run.unbounded).toEqual([6]);
          restored.append(ids.slice(start, end), concat(rows.slice(start, end), d), run);
        }
        expect(restored.size).toBe(n);
        // The restored metadata is byte for byte the recomputed one, and so are the vectors.
        expect(restored.quantizedRows(ids)).toEqual(oneByOne.quantizedRows(ids));
        for (const i of [0, 5, 6, 499, 500, n - 1]) expect(new Uint32Array(restored.vector(ids[i]!)!.buffer)).toEqual(new Uint32Array(rows[i]!.buffer));

        const queries = [unit(d, random), unit(d, random), rows[8]!, rows[100]!.map((x) => -x)];
        // With the unboundable row stored, both score every row; once it is gone, the bounds run on restored rows.
        expectSameAnswers(restored, oneByOne, queries);
        expectSameAnswers(restored, f32, queries);
        for (const m of [restored, oneByOne, f32]) m.remove('r6');
        expectSameAnswers(restored, oneByOne, queries);
        expectSameAnswers(restored, f32, queries, (id) => Number(id.slice(1)) % 3 !== 0);
        restored.topK(queries[0]!, 10);
        expect(restored.lastRescored).toBeLessThan(restored.size);
        expect(restored.vector('r100')).toEqual(rows[100]);
      });
    }
  }

  it('computes the metadata itself when it is missing or of another layout', () => {
    const random = rng(3);
    const d = 64;
    const ids = Array.from({ length: 300 }, (_, i) => `r${i}`);
    const rows = ids.map(() => unit(d, random));
    const reference = new VectorMatrix(d, { quantize: true });
    ids.forEach((id, i) => reference.upsert(id, rows[i]!));
    const saved = reference.quantizedRows(ids)!;
    const queries = [unit(d, random), unit(d, random)];
    for (const run of [undefined, { ...saved, layout: 'int8-some-other-layout' }, { ...saved, rows: saved.rows.subarray(0, 10) }]) {
      const m = new VectorMatrix(d, { quantize: true });
      m.append(ids, concat(rows, d), run);
      expect(m.quantizedRows(ids)).toEqual(saved);
      expectSameAnswers(m, reference, queries);
    }
  });

  it('appends after rows already there, and a matrix that scores every row exactly keeps the same metadata', () => {
    const random = rng(4);
    const d = 32;
    const rows = Array.from({ length: 200 }, () => unit(d, random));
    const ids = rows.map((_, i) => `r${i}`);
    const reference = new VectorMatrix(d, { quantize: true });
    ids.forEach((id, i) => reference.upsert(id, rows[i]!));
    const m = new VectorMatrix(d, { quantize: true, initialCapacity: 1 });
    ids.slice(0, 50).forEach((id, i) => m.upsert(id, rows[i]!));
    m.append(ids.slice(50), concat(rows.slice(50), d), reference.quantizedRows(ids.slice(50)));
    expectSameAnswers(m, reference, [unit(d, random)]);
    const f32 = new VectorMatrix(d, { quantize: false });
    f32.append(ids, concat(rows, d), reference.quantizedRows(ids));
    expect(f32.quantizedRows(ids)).toEqual(reference.quantizedRows(ids));
    expectSameAnswers(f32, reference, [unit(d, random)]);
  });

  it('refuses ids already in the matrix or repeated, and rows of the wrong length, leaving the matrix as it was', () => {
    const random = rng(5);
    const m = new VectorMatrix(8);
    m.upsert('a', unit(8, random));
    expect(() => m.append(['b', 'a'], concat([unit(8, random), unit(8, random)], 8))).toThrow(new RangeError('row "a" is already in the matrix'));
    expect(() => m.append(['c', 'c'], concat([unit(8, random), unit(8, random)], 8))).toThrow(new RangeError('row "c" is already in the matrix'));
    expect(() => m.append(['d'], new Float32Array(7))).toThrow(RangeError);
    expect(m.size).toBe(1);
    expect(['b', 'c', 'd'].some((id) => m.has(id))).toBe(false);
    // The row of the id a refused append repeated is still its own.
    expect(m.row('a')).toBe(0);
    expect(m.idAt(0)).toBe('a');
    m.append(['b', 'c'], concat([unit(8, random), unit(8, random)], 8));
    expect(m.size).toBe(3);
  });
});
