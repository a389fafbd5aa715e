import { largestF32AtMost } from './f32-rounding.js';
import { createKernels, type Kernels } from './split-rows-kernels.js';

/**
 * A matrix's f32 rows, each stored once, split in two halves: the high 16
 * bits of every component (a bfloat16: sign, exponent and 7 bits of
 * mantissa) and the low 16 bits, each half in a plane of its own. Together
 * they are the f32 row bit for bit, so `scores` is exact; the high halves
 * alone are a close approximation that `bounds` scans at half the memory
 * traffic of an f32 scan, giving every row a lower and an upper bound on its
 * exact score. VectorMatrix.topK scores exactly only the rows the bounds
 * cannot rule out. One copy of the data, where an f32 matrix beside a
 * quantised copy would keep 1.25× (int8) to 1.5× (f16) of it.
 *
 * Layout: rows live in blocks of 64, 128, ... rows, doubling up to
 * BLOCK_ROWS and then BLOCK_ROWS each, so a few rows cost little, capacity
 * grows by a block without moving a row, and at most one block is spare.
 * A block is [high halves: rows × stride × u16][low halves: rows × stride
 * × u16][metadata: rows × (L, N) f32], `stride` the dimension rounded up to
 * 16 (zero-padded). (Planes, not a row's halves side by side: a scan that
 * skips every other run of halves reads memory in a stride the hardware
 * streams far less well than a contiguous plane.) The buffer is [query:
 * stride × f32][blocks...][scratch: lo, hi, exact scores: capacity × f32
 * each]; scratch moves when a block is added.
 * Per row that is 4·stride + 8 bytes, plus 12 of scratch: 1,564 bytes at
 * 384-d against the raw vector's 1,536. The JS fallback keeps each block's
 * rows whole instead (plain f32 rows in the same bytes): its loop reads
 * floats, and rebuilding each from its halves in JS costs more than the
 * multiply-add it feeds.
 *
 * The bound. x a row (f32), h its high halves read as f32 (x with its low 16
 * bits cleared: truncation toward zero, so |h_i| ≤ |x_i|), l = x − h (exact:
 * the low 16 mantissa bits), y the query; N ≥ ‖x‖, L ≥ ‖l‖, Y ≥ ‖y‖ (norms
 * in f64, rounded up; L ≤ N); u = 2⁻²⁴; S = `scores`' f32 sum for x, A =
 * `bounds`' f32 sum of h_i·y_i; m = stride + 8 bounds the roundings on any
 * product's path in either sum (either kernel needs at most stride/8 + 5) and
 * γ = 2·m·u ≥ m·u/(1 − m·u).
 *  (1) |S − x·y| ≤ γ·Σ|x_i y_i| ≤ γ·N·Y;   (2) |A − h·y| ≤ γ·Σ|h_i y_i| ≤ γ·N·Y;
 *  (3) x·y − h·y = l·y, so |x·y − h·y| ≤ L·Y.
 *  So |S − A| ≤ L·Y + 2γ·N·Y.
 *  The kernel computes eps = fl(fl(fl(L·α) + fl(N·β)) + η), hi = fl(A + eps),
 *  lo = fl(A − eps), with α, β the f32 values of Y and (2γ + 4u)·Y inflated by
 *  1 + 2⁻¹⁸ (so α ≥ Y·(1 + 2⁻¹⁹), likewise β) and η = 2⁻¹⁰⁰. Then, as
 *  (1 + 2⁻¹⁹)(1 − u)³ ≥ 1, eps ≥ L·Y + (2γ + 4u)·N·Y + η/2; and
 *  hi ≥ A + eps − u·|A + eps| − 2⁻¹⁵⁰ where |A| ≤ 1.01·N·Y and
 *  eps ≤ 1.03·N·Y + 2η, so hi ≥ A + L·Y + 2γ·N·Y + (4 − 2.04)·u·N·Y +
 *  η/2 − 2⁻¹²⁰ − 2⁻¹⁵⁰ ≥ A + |S − A| ≥ S. Symmetrically lo ≤ S. η/2 also
 *  absorbs the underflow of S and A (at most (stride + 12)·2⁻¹⁵⁰ each).
 *  Overflow cannot happen: rows and queries with a non-finite component or a
 *  norm above 2⁶⁰ are refused (`write` returns false, `bounds` returns
 *  undefined) and the caller scores every row exactly. The JS fallback sums
 *  in f64 and rounds once to f32 at the store, which only tightens (1), (2)
 *  and the roundings of eps.
 */
export class SplitRows {
  /** Components per row: the dimension rounded up to a multiple of 16 (the kernels' step). */
  readonly stride: number;
  private readonly kernels: Kernels;
  /** Rows split in planes (WebAssembly), or whole f32 rows (the JS fallback: see the class comment). */
  private readonly planar: boolean;
  /** Each block's byte offset, first row and row count. */
  private readonly blocks: { base: number; start: number; rows: number }[] = [];
  private capacity = 0;

  /**
   * Names the metadata `metadata` copies out (and `writeMany` takes back):
   * the index snapshot persists it under this name and recomputes it when it
   * differs. Change the version when the split or the metadata changes.
   */
  static layoutOf(dimension: number): string {
    return `split-bf16-v1/${strideFor(dimension)}+8`;
  }

  /** Bytes a row costs at `dimension` (halves, metadata and scratch), spare rows of the last block aside. */
  static bytesPerRow(dimension: number): number {
    return strideFor(dimension) * 4 + 8 + 12;
  }

  /** Bytes of metadata per row in `metadata`' copy (L and N). */
  static readonly metadataBytes = 8;

  constructor(
    readonly dimension: number,
    capacity: number,
    options: { simd?: boolean } = {},
  ) {
    this.stride = strideFor(dimension);
    this.kernels = createKernels(this.stride * 4, options);
    this.planar = this.kernels.simd;
    this.reserve(capacity);
  }

  /** Whether the kernels run in WebAssembly SIMD. */
  get simd(): boolean {
    return this.kernels.simd;
  }

  /** Bytes held (a WebAssembly.Memory, or an ArrayBuffer for the JS fallback). */
  get bytes(): number {
    return this.kernels.buffer().byteLength;
  }

  /** Rows there is room for: at least the capacity asked for, rounded up to whole blocks. */
  get rows(): number {
    return this.capacity;
  }

  /** Makes room for `capacity` rows by adding blocks; rows already stored do not move. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    let end = this.scratchOffset();
    while (this.capacity < capacity) {
      const b = this.blocks.length;
      const rows = b < DOUBLINGS ? FIRST_BLOCK_ROWS << b : BLOCK_ROWS;
      this.blocks.push({ base: end, start: this.capacity, rows });
      end += rows * (this.stride * 4 + 8);
      this.capacity += rows;
    }
    this.kernels.grow(end + this.capacity * 12);
  }

  /**
   * Stores `vector` at `row`. Returns false when its score cannot be bounded
   * (a non-finite component or a norm above 2⁶⁰): it is stored all the same,
   * and only an exact scan may rank it.
   */
  write(row: number, vector: Float32Array): boolean {
    return this.writeMany(row, vector, 1).length === 0;
  }

  /**
   * Stores `count` rows from `row` on, given end to end in `vectors`, with
   * their metadata from `metadata` (a copy `metadata` gave, under the same
   * layout) or else computed. Returns the indexes (within the run) of rows
   * whose scores cannot be bounded.
   */
  writeMany(row: number, vectors: Float32Array, count: number, metadata?: Uint8Array): number[] {
    const d = this.dimension;
    const buffer = this.kernels.buffer();
    const halves = new Uint16Array(buffer);
    const words = new Uint32Array(buffer);
    const f32 = new Float32Array(buffer);
    const bits = new Uint32Array(vectors.buffer, vectors.byteOffset, vectors.length);
    const meta = metadata && new Float32Array(metadata.buffer, metadata.byteOffset, count * 2);
    const unbounded: number[] = [];
    // Planar rows are split by the kernel where it can, else one by one below.
    const splitAlready = this.planar && this.splitInKernel(row, vectors, count);
    for (let i = 0; i < count; i++) {
      const source = i * d;
      if (splitAlready) {
        // (halves written)
      } else if (this.planar) {
        const high = this.highOf(row + i) >> 1;
        const low = this.lowOf(row + i) >> 1;
        split(bits, source, d, words, halves, high, low);
        halves.fill(0, high + d, high + this.stride);
        halves.fill(0, low + d, low + this.stride);
      } else {
        const start = this.highOf(row + i) >> 2;
        f32.set(vectors.subarray(source, source + d), start);
        f32.fill(0, start + d, start + this.stride);
      }
      const at = this.metaOf(row + i) >> 2;
      if (meta) {
        f32[at] = meta[i * 2]!;
        f32[at + 1] = meta[i * 2 + 1]!;
        if (!(f32[at + 1]! < Infinity)) unbounded.push(i); // written as Infinity (NaN if damaged)
        continue;
      }
      const norms = normsOf(vectors.subarray(source, source + d));
      f32[at] = norms ? roundUp(norms.low) : 0;
      f32[at + 1] = norms ? roundUp(norms.norm) : Infinity;
      if (!norms) unbounded.push(i);
    }
    return unbounded;
  }

  /**
   * Splits `count` rows given end to end in `vectors` into the planes from
   * `row` on with the kernel's `split` (a byte shuffle eight components a
   * step, where the JS split moves two a step): each run of rows within one
   * block is copied into the scratch space and split from there. False,
   * having written nothing, when the scratch space holds no whole row (a
   * matrix of a few rows: the JS split does them).
   */
  private splitInKernel(row: number, vectors: Float32Array, count: number): boolean {
    const kernel = this.kernels.split;
    const rowBytes = this.dimension * 4;
    const scratch = this.scratchOffset();
    const room = Math.floor((this.capacity * 12) / rowBytes);
    if (!kernel || room < 1) return false;
    const source = new Uint8Array(vectors.buffer, vectors.byteOffset, count * rowBytes);
    for (let i = 0; i < count; ) {
      const block = this.blockOf(row + i);
      const n = Math.min(count - i, block.start + block.rows - (row + i), room);
      new Uint8Array(this.kernels.buffer(), scratch, n * rowBytes).set(source.subarray(i * rowBytes, (i + n) * rowBytes));
      kernel(scratch, n, this.dimension, this.stride, this.highOf(row + i), this.lowOf(row + i));
      i += n;
    }
    return true;
  }

  /** The f32 vector stored at `row`, bit for bit. */
  read(row: number): Float32Array {
    const out = new Float32Array(this.dimension);
    this.readInto(row, out, 0);
    return out;
  }

  /** Writes the f32 vector stored at `row`, bit for bit, into `out` from `offset`, allocating nothing (a snapshot page reads thousands). */
  readInto(row: number, out: Float32Array, offset: number): void {
    const buffer = this.kernels.buffer();
    if (!this.planar) {
      out.set(new Float32Array(buffer, this.highOf(row), this.dimension), offset);
      return;
    }
    const halves = new Uint16Array(buffer);
    const high = this.highOf(row) >> 1;
    const low = this.lowOf(row) >> 1;
    const bits = new Uint32Array(out.buffer, out.byteOffset + offset * 4, this.dimension);
    for (let j = 0; j < this.dimension; j++) bits[j] = (halves[high + j]! << 16) | halves[low + j]!;
  }

  /** A copy of the metadata of `count` rows from `row` (L, N as f32: `metadataBytes` a row), see `layoutOf`. */
  metadata(row: number, count: number): Uint8Array {
    const out = new Float32Array(count * 2);
    for (let i = 0; i < count; i++) this.metadataInto(row + i, out, i * 2);
    return new Uint8Array(out.buffer);
  }

  /** Writes row `row`'s metadata (L, N) into `out` at `offset` and `offset + 1`. */
  metadataInto(row: number, out: Float32Array, offset: number): void {
    const f32 = new Float32Array(this.kernels.buffer());
    const at = this.metaOf(row) >> 2;
    out[offset] = f32[at]!;
    out[offset + 1] = f32[at + 1]!;
  }

  /** Copies row `from` over row `to` (the matrix moved its last row into a hole). */
  move(from: number, to: number): void {
    const bytes = new Uint8Array(this.kernels.buffer());
    const half = this.stride * 2;
    // Whole rows (the JS fallback) are both halves long from highOf.
    bytes.copyWithin(this.highOf(to), this.highOf(from), this.highOf(from) + (this.planar ? half : 2 * half));
    if (this.planar) bytes.copyWithin(this.lowOf(to), this.lowOf(from), this.lowOf(from) + half);
    bytes.copyWithin(this.metaOf(to), this.metaOf(from), this.metaOf(from) + 8);
  }

  /** Puts the query where the kernels read it (zero-padded to the stride). */
  placeQuery(query: Float32Array): void {
    const f32 = new Float32Array(this.kernels.buffer(), 0, this.stride);
    f32.set(query.subarray(0, Math.min(query.length, this.stride)));
    f32.fill(0, Math.min(query.length, this.stride));
  }

  /**
   * For the first `count` rows, `lo[r] ≤ S[r] ≤ hi[r]` where S[r] is row r's
   * exact score with `query` (`scores`; see the proof above). The query is
   * placed here. The views are scratch, valid until the next call. Undefined
   * when the query cannot be bounded (a non-finite component or a norm above
   * 2⁶⁰).
   */
  bounds(query: Float32Array, count: number): { lo: Float32Array; hi: Float32Array } | undefined {
    let sum = 0;
    for (let i = 0; i < query.length; i++) sum += query[i]! * query[i]!;
    const norm = Math.sqrt(sum);
    if (!(norm <= LIMIT)) return undefined;
    this.placeQuery(query);
    const Y = norm * NORM_UP;
    const gamma = 2 * (this.stride + 8) * U;
    const alpha = Y * FACTOR_UP;
    const beta = (2 * gamma + 4 * U) * Y * FACTOR_UP;
    const lo = this.scratchOffset();
    const hi = lo + this.capacity * 4;
    for (const block of this.blocks) {
      if (block.start >= count) break;
      const rows = Math.min(block.rows, count - block.start);
      this.kernels.bounds(block.base, block.base + block.rows * this.stride * 4, 0, lo + block.start * 4, hi + block.start * 4, rows, this.stride, alpha, beta, ETA);
    }
    const buffer = this.kernels.buffer();
    return { lo: new Float32Array(buffer, lo, count), hi: new Float32Array(buffer, hi, count) };
  }

  /**
   * After `bounds` of the first `count` rows: the rows whose upper bound is
   * not ≤ `threshold` (an f64: compared as JS compares the bound with it),
   * ascending, as a scratch view valid until the next call on these rows
   * (it shares its memory with `scores`), and the largest upper bound.
   */
  above(count: number, threshold: number): { rows: Int32Array; largest: number } {
    const hi = this.scratchOffset() + this.capacity * 4;
    const out = this.scratchOffset() + this.capacity * 8;
    const n = this.kernels.above(hi, count, largestF32AtMost(threshold), out);
    return { rows: new Int32Array(this.kernels.buffer(), out, n), largest: this.kernels.largest() };
  }

  /** The exact scores of the first `count` rows with the placed query (scratch view, valid until the next call). */
  scores(count: number): Float32Array {
    const out = this.scratchOffset() + this.capacity * 8;
    for (const block of this.blocks) {
      if (block.start >= count) break;
      const rows = Math.min(block.rows, count - block.start);
      this.kernels.scores(block.base, block.base + block.rows * this.stride * 2, 0, out + block.start * 4, rows, this.stride);
    }
    return new Float32Array(this.kernels.buffer(), out, count);
  }

  /** The exact scores of `rows` with the placed query, in the order given, bit for bit those `scores` gives them (scratch view). */
  scoresOf(rows: readonly number[]): Float32Array {
    const out = this.scratchOffset() + this.capacity * 8;
    for (let i = 0; i < rows.length; i++) this.kernels.scores(this.highOf(rows[i]!), this.lowOf(rows[i]!), 0, out + i * 4, 1, this.stride);
    return new Float32Array(this.kernels.buffer(), out, rows.length);
  }

  /** The block holding `row`. */
  private blockOf(row: number): { base: number; start: number; rows: number } {
    const b = row < DOUBLED_ROWS ? 31 - Math.clz32((row >> FIRST_BLOCK_SHIFT) + 1) : DOUBLINGS + Math.floor((row - DOUBLED_ROWS) / BLOCK_ROWS);
    return this.blocks[b]!;
  }

  /** Where `row`'s high halves start (its whole f32 row where rows are not planar). */
  private highOf(row: number): number {
    const block = this.blockOf(row);
    return block.base + (row - block.start) * this.stride * (this.planar ? 2 : 4);
  }

  /** Where `row`'s low halves start (planar rows only; the kernels ignore it otherwise). */
  private lowOf(row: number): number {
    const block = this.blockOf(row);
    return this.planar ? block.base + (block.rows + row - block.start) * this.stride * 2 : this.highOf(row);
  }

  private metaOf(row: number): number {
    const block = this.blockOf(row);
    return block.base + block.rows * this.stride * 4 + (row - block.start) * 8;
  }

  /** Where scratch starts: after the query and the last block. */
  private scratchOffset(): number {
    const last = this.blocks.at(-1);
    return last ? last.base + last.rows * (this.stride * 4 + 8) : this.stride * 4;
  }
}

/** The first block's rows (a power of two), doubling up to BLOCK_ROWS. */
const FIRST_BLOCK_SHIFT = 6;
const FIRST_BLOCK_ROWS = 1 << FIRST_BLOCK_SHIFT;
/** Rows of every block after the doubling ones: at most this many rows are spare (2% of 100k). */
const BLOCK_ROWS = 2048;
/** How many blocks double (64 ... 2048), and the rows they hold together. */
const DOUBLINGS = Math.log2(BLOCK_ROWS / FIRST_BLOCK_ROWS) + 1;
const DOUBLED_ROWS = FIRST_BLOCK_ROWS * (2 ** DOUBLINGS - 1);

const U = 2 ** -24;
const ETA = 2 ** -100;
const LIMIT = 2 ** 60;
/** Inflates an f64 norm so its f32 rounding is still an upper bound (covers the f64 sum's own error too). */
const NORM_UP = 1 + 2 ** -20;
/** Inflates α, β by 1 + 2⁻¹⁸ before the kernel rounds them to f32 (see the proof). */
const FACTOR_UP = 1 + 2 ** -18;

function strideFor(dimension: number): number {
  return Math.ceil(dimension / 16) * 16;
}

/**
 * Writes the high and the low 16 bits of `count` f32 bit patterns from
 * `bits[from]` to the halves at u16 indexes `high` and `low` (both even), two
 * components per 32-bit store (half the stores of one per 16-bit store,
 * which matters when an open loads every row).
 */
function split(bits: Uint32Array, from: number, count: number, words: Uint32Array, halves: Uint16Array, high: number, low: number): void {
  const pairs = count >> 1;
  const h = high >> 1;
  const l = low >> 1;
  for (let k = 0; k < pairs; k++) {
    const b0 = bits[from + 2 * k]!;
    const b1 = bits[from + 2 * k + 1]!;
    words[h + k] = (b0 >>> 16) | (b1 & 0xffff0000);
    words[l + k] = (b0 & 0xffff) | (b1 << 16);
  }
  if (count & 1) {
    const b = bits[from + count - 1]!;
    halves[high + count - 1] = b >>> 16;
    halves[low + count - 1] = b & 0xffff;
  }
}

/** ‖v‖ and the norm of its low halves' values (v − v with its low 16 bits cleared), in f64; undefined when v cannot be bounded. */
function normsOf(v: Float32Array): { norm: number; low: number } | undefined {
  const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
  const high = new Float32Array(1);
  const highBits = new Uint32Array(high.buffer);
  let sum = 0;
  let low = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    sum += x * x;
    highBits[0] = bits[i]! & 0xffff0000;
    const l = x - high[0]!;
    low += l * l;
  }
  const norm = Math.sqrt(sum);
  if (!(norm <= LIMIT)) return undefined; // NaN (a NaN or infinite component) fails too
  return { norm, low: Math.sqrt(low) };
}

/** An f32 value ≥ `value` (≥ 0): fround(v·(1 + 2⁻²⁰)) ≥ v·(1 + 2⁻²⁰)(1 − 2⁻²⁴) > v. */
function roundUp(value: number): number {
  return Math.fround(value * NORM_UP);
}
