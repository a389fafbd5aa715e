import { createI8Kernel, type I8Kernel } from './i8-kernel.js';

/**
 * The int8 copy of a matrix's rows, and for one query a lower and an upper
 * bound on each row's exact f32 score (the score the f32 kernel computes),
 * `lo[r] ≤ S[r] ≤ hi[r]`, at a quarter of the f32 scan's memory traffic.
 * VectorMatrix.topK uses the bounds to pick the few rows it re-scores in f32.
 *
 * Quantisation: symmetric, one scale per row, `s = f32(max|x_i| / 127)`, codes
 * `q_i = clamp(round(x_i / s), −127, 127)`. A per-row scale rather than one
 * global 1/127 (rows are unit vectors, so |x_i| ≤ 1 would allow it): a unit
 * row's largest component is far below 1 (about 0.25 at 128-d, 0.12 at
 * 768-d), so a global scale would waste 2 to 3 of the 8 bits and make every
 * bound, and so the re-ranked candidate set, several times wider; the scale
 * costs 4 bytes a row, and rows that are not unit (or zero) stay exact.
 *
 * Memory, per row: `stride` bytes of codes (the dimension rounded up to 16)
 * plus 16 bytes of metadata (f32 scale, N = bound on ‖x‖₂, E = bound on the
 * residual's ‖x − s·q‖₂, padding), plus 8 bytes of per-query scratch (lo, hi):
 * d + 24 bytes for d a multiple of 16 (152 at 128-d, 408 at 384-d, 792 at
 * 768-d), on top of the f32 matrix's 4·d + 4.
 * Buffer layout: [query codes: stride × i16][rows: capacity × (stride + 16)]
 * [lo: capacity × f32][hi: capacity × f32].
 *
 * The bound. Notation: x a row, y the query (f32 vectors); u = 2⁻²⁴ (f32 unit
 * roundoff); s, q, e = x − s·q for the row and t, p, f = y − t·p for the query;
 * N ≥ ‖x‖, E ≥ ‖e‖, Y ≥ ‖y‖, F ≥ ‖f‖ (norms computed in f64 and rounded up);
 * D = q·p (exact: an i32 sum of |q_i p_i| ≤ 127², so stride ≤ 133,000);
 * S the f32 kernel's score of x and y; A = fl(fl(fl(D)·s)·t) the approximation.
 *  (1) Rounding of S: any summation order of m roundings per term gives
 *      |S − x·y| ≤ γ·Σ|x_i y_i| ≤ γ·N·Y, γ = m·u/(1 − m·u) ≤ 2·m·u. We take
 *      m = stride + 8, which covers every order of summing ≤ stride products
 *      (the SIMD kernel needs stride/8 + 4, the JS fallback sums in f64).
 *  (2) Quantisation: x·y − s·t·D = x·y − (x − e)·(y − f) = x·f + e·y − e·f, so
 *      by Cauchy–Schwarz |x·y − s·t·D| ≤ N·F + E·Y + E·F.
 *  (3) Rounding of A: three roundings, |A − s·t·D| ≤ 3.01u·|s·q|·|t·p| ≤ 3.01u·T
 *      with T = (N + E)(Y + F), since ‖s·q‖ = ‖x − e‖ ≤ N + E (and likewise).
 *  So |S − A| ≤ N·F + E·Y + E·F + γ·N·Y + 3.01u·T = N·α₀ + E·β₀ − 2.99u·T when
 *      α₀ = F + γ·Y + δ·(Y + F),  β₀ = Y + F + δ·(Y + F),  δ = 6u.
 *  The kernel computes eps = fl(fl(fl(N·α) + fl(E·β)) + η) and
 *  hi = fl(A + eps), lo = fl(A − eps), with α, β the f32 values of α₀, β₀
 *  inflated by 1 + 2⁻¹⁸ (so α ≥ α₀·(1 + 2⁻¹⁹)) and η = 2⁻¹⁰⁰. Then
 *  eps·(1 − u) ≥ (N·α₀ + E·β₀)·(1 + 2⁻¹⁹)(1 − u)⁴ + η·(1 − u)² − 3·2⁻¹⁵⁰
 *             ≥ N·α₀ + E·β₀ + 2⁻¹⁰¹,
 *  and hi ≥ A + eps − u·|A + eps| ≥ A + eps·(1 − u) − u·|A| − 2⁻¹⁵⁰ where
 *  |A| ≤ 1.01·T, so hi ≥ A + N·α₀ + E·β₀ − 1.01u·T + 2⁻¹⁰¹ − 2⁻¹⁵⁰ ≥ A + |S − A| ≥ S.
 *  Symmetrically lo ≤ S. The 2⁻¹⁵⁰ terms are underflow (absolute error of a
 *  rounding to f32 near zero); η absorbs them and the underflow of S and A
 *  (at most (stride + 12)·2⁻¹⁵⁰ ≤ 2⁻¹⁰¹). Overflow cannot happen: rows and
 *  queries with a non-finite component or a norm above 2⁶⁰ are refused
 *  (`write` returns false, `bounds` returns undefined) and the caller scans
 *  them in f32. The JS fallback computes A and eps in f64 and rounds once to
 *  f32 at the store, which only tightens each step above.
 */
export class QuantizedRows {
  /** Codes per row: the dimension rounded up to a multiple of 16 (the kernel's step). */
  readonly stride: number;
  /** Bytes of one stored row: its codes, then its metadata (scale, N, E, padding). */
  readonly rowBytes: number;
  private readonly kernel: I8Kernel;
  private capacity: number;

  /**
   * Names the stored rows' encoding (quantisation rule and row layout). Rows
   * copied out with `readRows` are valid input to `writeRows` only under the
   * same layout: the index snapshot persists them with this name and
   * recomputes them when it differs. Change the version when `quantize` or
   * the row layout changes.
   */
  static layoutOf(dimension: number): string {
    return `int8-rowscale-v1/${strideFor(dimension)}+16`;
  }

  /** Whether a dimension can be quantised (the kernel's i32 dot product cannot overflow). */
  static supports(dimension: number): boolean {
    return dimension >= 1 && strideFor(dimension) * 127 * 127 < 2 ** 31;
  }

  /** Bytes this adds per row (codes, metadata and scratch) at `dimension`. */
  static bytesPerRow(dimension: number): number {
    return strideFor(dimension) + 16 + 8;
  }

  constructor(
    readonly dimension: number,
    capacity: number,
    options: { simd?: boolean } = {},
  ) {
    this.stride = strideFor(dimension);
    this.rowBytes = this.stride + 16;
    this.capacity = capacity;
    this.kernel = createI8Kernel(this.bytesFor(capacity), options);
  }

  /** Whether the bounds are computed in WebAssembly SIMD. */
  get simd(): boolean {
    return this.kernel.simd;
  }

  /** Makes room for `capacity` rows, keeping them. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    this.kernel.grow(this.bytesFor(capacity));
    this.capacity = capacity;
  }

  /**
   * Quantises `vector` into `row`. Returns false (and stores zeros) when the
   * row cannot be bounded: a non-finite component or a norm above 2⁶⁰.
   */
  write(row: number, vector: Float32Array): boolean {
    const buffer = this.kernel.buffer();
    const start = this.rowsOffset() + row * this.rowBytes;
    const meta = new Float32Array(buffer, start + this.stride, 4);
    const q = quantize(vector, new Int8Array(buffer, start, this.stride));
    meta.set(q ? [q.scale, roundUp(q.norm), roundUp(q.residual)] : [0, 0, 0, 0]);
    return q !== undefined;
  }

  /** A copy of `count` rows from `row` (codes and metadata, `count × rowBytes` bytes), see `layoutOf`. */
  readRows(row: number, count: number): Uint8Array {
    const start = this.rowsOffset() + row * this.rowBytes;
    return new Uint8Array(this.kernel.buffer()).slice(start, start + count * this.rowBytes);
  }

  /**
   * Stores rows copied out by `readRows` (under the same `layoutOf`) from
   * `row` on: one copy instead of quantising each vector again.
   */
  writeRows(row: number, rows: Uint8Array): void {
    if (rows.length % this.rowBytes !== 0) throw new RangeError(`${rows.length} bytes are not whole rows of ${this.rowBytes}`);
    if (row + rows.length / this.rowBytes > this.capacity) throw new RangeError(`rows ${row}+${rows.length / this.rowBytes} exceed the capacity ${this.capacity}`);
    new Uint8Array(this.kernel.buffer()).set(rows, this.rowsOffset() + row * this.rowBytes);
  }

  /** Copies row `from` over row `to` (the matrix moved its last row into a hole). */
  move(from: number, to: number): void {
    const bytes = new Uint8Array(this.kernel.buffer());
    const base = this.rowsOffset();
    bytes.copyWithin(base + to * this.rowBytes, base + from * this.rowBytes, base + (from + 1) * this.rowBytes);
  }

  /**
   * For the first `rows` rows, `lo[r] ≤ S[r] ≤ hi[r]` where S[r] is the f32
   * kernel's score of row r with `query` (see the proof above). The views are
   * scratch, valid until the next call. Undefined when the query cannot be
   * bounded (a non-finite component or a norm above 2⁶⁰).
   */
  bounds(query: Float32Array, rows: number): { lo: Float32Array; hi: Float32Array } | undefined {
    const q = quantize(query, new Int16Array(this.kernel.buffer(), 0, this.stride));
    if (!q) return undefined;
    const Y = q.norm * NORM_UP;
    const F = q.residual * NORM_UP;
    const gamma = 2 * (this.stride + 8) * U;
    const delta = 6 * U;
    const alpha = F + gamma * Y + delta * (Y + F);
    const beta = Y + F + delta * (Y + F);
    const lo = this.loOffset();
    const hi = lo + this.capacity * 4;
    this.kernel.bounds(this.rowsOffset(), 0, lo, hi, rows, this.stride, q.scale, alpha * FACTOR_UP, beta * FACTOR_UP, ETA);
    const out = this.kernel.buffer();
    return { lo: new Float32Array(out, lo, rows), hi: new Float32Array(out, hi, rows) };
  }

  private rowsOffset(): number {
    return this.stride * 2;
  }

  private loOffset(): number {
    return this.rowsOffset() + this.capacity * this.rowBytes;
  }

  private bytesFor(capacity: number): number {
    return this.stride * 2 + capacity * (this.rowBytes + 8);
  }
}

const U = 2 ** -24;
const ETA = 2 ** -100;
const LIMIT = 2 ** 60;
/** Inflates an f64 norm so its f32 rounding is still an upper bound (covers the f64 sum's own error too). */
const NORM_UP = 1 + 2 ** -20;
/** Inflates α₀, β₀ by 1 + 2⁻¹⁸ before the kernel rounds them to f32 (see the proof). */
const FACTOR_UP = 1 + 2 ** -18;

function strideFor(dimension: number): number {
  return Math.ceil(dimension / 16) * 16;
}

/**
 * Fills `codes` (zeroed beyond the vector) with v's int8 codes at the scale
 * f32(max|v_i| / 127); returns the scale, ‖v‖ and the residual's ‖v − scale·codes‖
 * (both in f64), or undefined when v has a non-finite component or a norm
 * above 2⁶⁰ (codes left zero).
 */
function quantize(v: Float32Array, codes: Int8Array | Int16Array): { scale: number; norm: number; residual: number } | undefined {
  codes.fill(0);
  let max = 0;
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    const magnitude = x < 0 ? -x : x;
    if (magnitude > max) max = magnitude;
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  if (!(norm <= LIMIT)) return undefined; // NaN (a NaN or infinite component) fails too
  const scale = Math.fround(max / 127);
  if (scale === 0) return { scale, norm, residual: norm }; // all codes 0: the residual is v itself
  // Any integer codes keep the bound valid (the residual is measured, not assumed); these are the nearest ones.
  const inverse = 1 / scale;
  let residual = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    let code = Math.round(x * inverse);
    if (code > 127) code = 127;
    else if (code < -127) code = -127;
    codes[i] = code;
    const e = x - scale * code;
    residual += e * e;
  }
  return { scale, norm, residual: Math.sqrt(residual) };
}

/** An f32 value ≥ `value` (≥ 0): fround(v·(1 + 2⁻²⁰)) ≥ v·(1 + 2⁻²⁰)(1 − 2⁻²⁴) > v. */
function roundUp(value: number): number {
  return Math.fround(value * NORM_UP);
}
