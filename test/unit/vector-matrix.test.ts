import { describe, expect, it } from 'vitest';
import { VectorMatrix } from '../../src/search/vector-matrix.js';
import { normalizeInPlace } from '../../src/embed/normalize.js';
import { rng } from '../../bench/synthetic.js';

function randomUnit(d: number, random: () => number): Float32Array {
  return normalizeInPlace(Float32Array.from({ length: d }, () => random() * 2 - 1));
}

function bruteForce(rows: Map<string, Float32Array>, q: Float32Array, k: number) {
  return [...rows]
    .map(([id, v]) => ({ id, score: v.reduce((s, x, i) => s + x * q[i]!, 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

describe('VectorMatrix', () => {
  for (const simd of [true, false]) {
    for (const quantize of [true, false]) {
      for (const d of [128, 384, 100]) {
        it(`top-k equals brute force (simd ${simd}, quantize ${quantize}, ${d} dims, with deletes and growth)`, () => {
          const random = rng(d);
          const m = new VectorMatrix(d, { simd, quantize, initialCapacity: 2 });
          expect(m.quantized).toBe(quantize);
          if (simd) expect(m.simd).toBe(true);
          const rows = new Map<string, Float32Array>();
          for (let i = 0; i < 600; i++) {
            const v = randomUnit(d, random);
            m.upsert(`r${i}`, v);
            rows.set(`r${i}`, v);
          }
          for (let i = 0; i < 600; i += 3) {
            m.remove(`r${i}`);
            rows.delete(`r${i}`);
          }
          const replaced = randomUnit(d, random);
          m.upsert('r1', replaced);
          rows.set('r1', replaced);
          expect(m.size).toBe(rows.size);
          for (let t = 0; t < 20; t++) {
            const q = randomUnit(d, random);
            const got = m.topK(q, 10);
            const want = bruteForce(rows, q, 10);
            expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
            got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 5));
          }
          expect(m.vector('r1')).toEqual(replaced);
          expect(m.similarity('r1', replaced)).toBeCloseTo(1, 5);
        });
      }
    }
  }

  it('filters with accept before rows compete', () => {
    const m = new VectorMatrix(8);
    const a = normalizeInPlace(Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]));
    const b = normalizeInPlace(Float32Array.from([0.9, 0.1, 0, 0, 0, 0, 0, 0]));
    m.upsert('a', a);
    m.upsert('b', b);
    expect(m.topK(a, 1, (id) => id !== 'a').map((h) => h.id)).toEqual(['b']);
  });

  it('rejects a vector of the wrong dimension', () => {
    expect(() => new VectorMatrix(4).upsert('x', new Float32Array(3))).toThrow(/3 dimensions/);
  });
});
