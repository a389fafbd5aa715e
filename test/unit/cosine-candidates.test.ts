import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineCandidates } from '../../src/search/cosine-candidates.js';

/**
 * The candidate walk of VectorMatrix.topK (search/cosine-candidates.ts).
 * With a kernel handing it the rows past its first bar, it must return
 * exactly what walking every row in JS returns: same rows, same order. The
 * bounds are drawn from a few values so that ties with the bar (hi equal to
 * it, which the walk keeps) are the common case, not a rare one.
 */

/** What the WebAssembly kernel does (split-rows.wat `above`): the rows whose hi is not ≤ threshold, ascending. */
function aboveOf(hi: Float32Array) {
  let calls = 0;
  const above = (threshold: number) => {
    calls++;
    const rows: number[] = [];
    for (let row = 0; row < hi.length; row++) if (!(hi[row]! <= threshold)) rows.push(row);
    return Int32Array.from(rows);
  };
  return { above, calls: () => calls };
}

const LEVELS = [-1, -0.5, 0, 0.25, 0.5, 0.75, 1].map(Math.fround);

/** n rows of bounds lo ≤ hi from LEVELS, and an accept mask. */
const rowsArb = (minRows: number, maxRows: number) =>
  fc
    .array(fc.record({ a: fc.integer({ min: 0, max: LEVELS.length - 1 }), b: fc.integer({ min: 0, max: LEVELS.length - 1 }), ok: fc.integer({ min: 0, max: 9 }) }), { minLength: minRows, maxLength: maxRows })
    .map((rows) => ({
      lo: Float32Array.from(rows, (r) => LEVELS[Math.min(r.a, r.b)]!),
      hi: Float32Array.from(rows, (r) => LEVELS[Math.max(r.a, r.b)]!),
      accepted: rows.map((r) => r.ok > 0),
    }));

describe('cosineCandidates', () => {
  it('with the kernel: exactly the rows the walk over every row keeps, in the same order (property)', () => {
    fc.assert(
      fc.property(rowsArb(4_100, 6_000), fc.integer({ min: 1, max: 40 }), fc.boolean(), ({ lo, hi, accepted }, k, filtered) => {
        const accept = filtered ? (row: number) => accepted[row]! : undefined;
        const everyRow = cosineCandidates(lo, hi, k, accept);
        const kernel = aboveOf(hi);
        const handed = cosineCandidates(lo, hi, k, accept, kernel.above);
        expect(handed.rows).toEqual(everyRow.rows);
        expect(everyRow.walked).toBe(lo.length);
        // The kernel was asked (there are more than 2 × 2,048 rows and k of them accepted in the first ones).
        expect(kernel.calls()).toBe(1);
      }),
      { numRuns: 40 },
    );
  });

  it('walks a few hundred rows past the first 2,048 when the bounds are spread out', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const n = 100_000;
    const lo = new Float32Array(n);
    const hi = new Float32Array(n);
    for (let row = 0; row < n; row++) {
      lo[row] = random() * 2 - 1;
      hi[row] = lo[row]! + 0.002;
    }
    const { above } = aboveOf(hi);
    const found = cosineCandidates(lo, hi, 10, undefined, above);
    expect(found.rows).toEqual(cosineCandidates(lo, hi, 10).rows);
    expect(found.walked).toBeGreaterThan(2_048);
    expect(found.walked).toBeLessThan(2_048 + 2_000);
  });

  it('walks every row in JS below 4,096 rows, or until k rows are accepted', () => {
    const lo = Float32Array.from({ length: 3_000 }, (_, i) => i / 3_000);
    const hi = lo.map((x) => x + 0.01);
    const kernel = aboveOf(hi);
    expect(cosineCandidates(lo, hi, 5, undefined, kernel.above).walked).toBe(3_000);
    expect(kernel.calls()).toBe(0);

    const many = Float32Array.from({ length: 10_000 }, (_, i) => i / 10_000);
    const manyHi = many.map((x) => x + 0.01);
    const { above } = aboveOf(manyHi);
    // Nothing accepted before row 9,000: the walk has no bar until then, so it goes on in JS.
    const late = cosineCandidates(many, manyHi, 5, (row) => row >= 9_000, above);
    expect(late.walked).toBeGreaterThanOrEqual(9_005);
    expect(late.rows).toEqual(cosineCandidates(many, manyHi, 5, (row) => row >= 9_000).rows);
    expect(late.rows.slice(-5)).toEqual([9_995, 9_996, 9_997, 9_998, 9_999]);
  });
});
