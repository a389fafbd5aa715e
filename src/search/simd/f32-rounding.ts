/*
 * Rounding an f64 threshold to the f32 a kernel compares with, so a test
 * in f32 keeps exactly the rows a test in f64 would.
 */

const F32 = new Float32Array(1);
const F32_BITS = new Uint32Array(F32.buffer);

/**
 * The largest f32 value ≤ `value` (NaN for NaN): for an f32 h, `h <= value`
 * exactly when `h <= largestF32AtMost(value)`, so a kernel that compares in
 * f32 keeps the rows a JS test in f64 keeps.
 */
export function largestF32AtMost(value: number): number {
  const rounded = Math.fround(value);
  if (!(rounded > value)) return rounded;
  F32[0] = rounded;
  // One step down: towards −∞ in magnitude order (a positive value's bits − 1, a negative one's + 1; below ±0, −2⁻¹⁴⁹).
  if (rounded > 0) F32_BITS[0]!--;
  else if (rounded < 0) F32_BITS[0]!++;
  else F32_BITS[0] = 0x80000001;
  return F32[0]!;
}

/**
 * The largest f32 value below `value` (−∞ for −∞): for an f32 h and an f32
 * b, `h >= b` exactly when h is not ≤ `largestF32Below(b)`, so
 * `above(count, largestF32Below(b))` gives the rows whose bound is at least b.
 */
export function largestF32Below(value: number): number {
  const rounded = largestF32AtMost(value);
  if (rounded < value || rounded === Number.NEGATIVE_INFINITY) return rounded;
  F32[0] = rounded;
  if (rounded > 0) F32_BITS[0]!--;
  else if (rounded < 0) F32_BITS[0]!++;
  else F32_BITS[0] = 0x80000001;
  return F32[0]!;
}
