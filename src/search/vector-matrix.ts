import { createDotKernel, type DotKernel } from './simd/dot-kernel.js';
import { QuantizedRows } from './simd/quantized-rows.js';
import { TopK } from './top-k.js';

export interface VectorMatrixOptions {
  /** Rows to allocate for at first (capacity doubles as it fills). */
  initialCapacity?: number;
  /** false: score in JS even where WebAssembly SIMD is available. */
  simd?: boolean;
  /**
   * Keep an int8 copy of every row and scan it first, re-scoring only the
   * rows it cannot rule out in f32. Results are identical either way; false
   * scans every row in f32 and saves the copy's memory. Default: true where
   * scoring runs in WebAssembly SIMD (about 3x faster at 100k rows, see
   * bench/vector-scan.ts), false for the JS fallback (where the int8 loop is
   * no faster than the f32 one, so the copy would only cost memory).
   */
  quantize?: boolean;
  /** Per-row data kept beside the rows (search/row-signals.ts): told of every capacity change and row move. */
  companion?: RowCompanion;
}

/** Arrays indexed like the matrix's rows, which the matrix keeps in step with its own. */
export interface RowCompanion {
  /** Makes room for rows [0, capacity), keeping the existing ones. */
  reserve(capacity: number): void;
  /** Row `from` now lives at row `to` (a delete moved the last row into the hole). */
  move(from: number, to: number): void;
}

/** Bounds on every row's f32 score with one query, `lo[r] ≤ score ≤ hi[r]`; `exact` when they are the scores themselves. */
export interface ScoreBounds {
  lo: Float32Array;
  hi: Float32Array;
  exact: boolean;
}

/** Rows of a matrix's int8 copy (simd/quantized-rows.ts), as the index snapshot keeps them next to their f32 rows. */
export interface QuantizedRun {
  /** `QuantizedRows.layoutOf(dimension)` when the rows were copied out: rows of another layout are quantised again. */
  layout: string;
  /** The rows' codes and metadata, end to end. */
  rows: Uint8Array;
  /** Indexes (within the run) of rows the int8 copy cannot bound. */
  unbounded: readonly number[];
}

/**
 * Exact nearest-neighbour search over one contiguous block of f32 rows.
 *
 * Rows are unit vectors, so the dot product is the cosine. Scoring runs in
 * WebAssembly SIMD where available (see simd/dot-kernel.ts); top-k selection
 * is a bounded heap in JS. Deletes move the last row into the hole, so the
 * block stays dense; capacity doubles as it fills.
 *
 * With `quantize` (the default where SIMD runs) topK first scans an int8
 * copy of the rows (simd/quantized-rows.ts), which gives every row a lower
 * and an upper bound on its f32 score, keeps the rows whose upper bound
 * reaches the k-th best lower bound (see `candidates`), and re-scores only
 * those with the same f32 kernel: the same ids and the same float scores as
 * scanning every row in f32, at about a quarter of the memory traffic. The copy costs `QuantizedRows.bytesPerRow`
 * (d + 24 bytes at a dimension d that is a multiple of 16) on top of the f32
 * row's 4·d + 4. The f32 rows stay, for `vector`, `similarity` and the
 * re-scoring.
 *
 * Ties: among equal scores the lower row wins and comes first (rows are in
 * insertion order, except that a delete moves the last row into its hole), so
 * a result is the k best under (score descending, row ascending), whichever
 * path computed it.
 */
export class VectorMatrix {
  readonly dimension: number;
  /** Row length in floats: the dimension padded with zeros to a multiple of 8 (the SIMD kernel's step). */
  private readonly stride: number;
  private readonly kernel: DotKernel;
  private readonly int8: QuantizedRows | undefined;
  /** Ids of rows the int8 copy cannot bound (a non-finite component, a huge norm): while any is stored, topK scans in f32. */
  private readonly unbounded = new Set<string>();
  private capacity: number;
  private ids: string[] = [];
  private rowOf = new Map<string, number>();
  private rescored = 0;
  private readonly companion: RowCompanion | undefined;

  constructor(dimension: number, options: VectorMatrixOptions = {}) {
    this.dimension = dimension;
    this.stride = Math.ceil(dimension / 8) * 8;
    this.capacity = Math.max(1, options.initialCapacity ?? 64);
    this.kernel = createDotKernel(this.bytesFor(this.capacity), { simd: options.simd });
    this.companion = options.companion;
    this.companion?.reserve(this.capacity);
    if ((options.quantize ?? this.kernel.simd) && QuantizedRows.supports(dimension)) {
      this.int8 = new QuantizedRows(dimension, this.capacity, { simd: options.simd });
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** Whether scoring runs in WebAssembly SIMD. */
  get simd(): boolean {
    return this.kernel.simd;
  }

  /** Whether topK scans an int8 copy first (see the class comment). */
  get quantized(): boolean {
    return this.int8 !== undefined;
  }

  /** How many rows the last topK scored in f32: the re-ranked candidates, or every row for an f32 scan. */
  get lastRescored(): number {
    return this.rescored;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  /** The row holding `id` (rows move when another row is removed: see the class comment). */
  row(id: string): number | undefined {
    return this.rowOf.get(id);
  }

  idAt(row: number): string {
    return this.ids[row]!;
  }

  upsert(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) {
      throw new RangeError(`vector has ${vector.length} dimensions, the index has ${this.dimension}`);
    }
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this.ensureCapacity(row + 1);
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    const f = this.floats();
    const start = this.matrixOffset() / 4 + row * this.stride;
    f.set(vector, start);
    f.fill(0, start + this.dimension, start + this.stride);
    if (this.int8) {
      if (this.int8.write(row, vector)) this.unbounded.delete(id);
      else this.unbounded.add(id);
    }
  }

  /**
   * Appends rows in bulk (opening an index): `vectors` holds one row per id,
   * end to end, and `quantized` their int8 copy as `quantizedRows` gave it,
   * if it was kept. Capacity grows once and the rows go in with a few block
   * copies; rows whose int8 copy is missing or of another layout are
   * quantised here, as `upsert` would. The ids must not be in the matrix yet.
   */
  append(ids: readonly string[], vectors: Float32Array, quantized?: QuantizedRun): void {
    const count = ids.length;
    if (vectors.length !== count * this.dimension) {
      throw new RangeError(`${vectors.length} floats are not ${count} rows of ${this.dimension} dimensions`);
    }
    const first = this.ids.length;
    this.ensureCapacity(first + count);
    for (let i = 0; i < count; i++) {
      const id = ids[i]!;
      if (this.rowOf.has(id)) {
        for (let j = 0; j < i; j++) this.rowOf.delete(ids[j]!);
        throw new RangeError(`row "${id}" is already in the matrix`);
      }
      this.rowOf.set(id, first + i);
    }
    const f = this.floats();
    const base = this.matrixOffset() / 4 + first * this.stride;
    if (this.stride === this.dimension) {
      f.set(vectors, base);
    } else {
      for (let i = 0; i < count; i++) {
        const start = base + i * this.stride;
        f.set(vectors.subarray(i * this.dimension, (i + 1) * this.dimension), start);
        f.fill(0, start + this.dimension, start + this.stride);
      }
    }
    for (const id of ids) this.ids.push(id);
    if (!this.int8) return;
    if (quantized && quantized.layout === QuantizedRows.layoutOf(this.dimension) && quantized.rows.length === count * this.int8.rowBytes) {
      this.int8.writeRows(first, quantized.rows);
      for (const i of quantized.unbounded) this.unbounded.add(ids[i]!);
      return;
    }
    for (let i = 0; i < count; i++) {
      if (!this.int8.write(first + i, vectors.subarray(i * this.dimension, (i + 1) * this.dimension))) this.unbounded.add(ids[i]!);
    }
  }

  /** The int8 copy of `ids`' rows, in the form `append` takes back; undefined when the matrix keeps none (or lacks an id). */
  quantizedRows(ids: readonly string[]): QuantizedRun | undefined {
    if (!this.int8) return undefined;
    const rows = new Uint8Array(ids.length * this.int8.rowBytes);
    const unbounded: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const row = this.rowOf.get(ids[i]!);
      if (row === undefined) return undefined;
      rows.set(this.int8.readRows(row, 1), i * this.int8.rowBytes);
      if (this.unbounded.has(ids[i]!)) unbounded.push(i);
    }
    return { layout: QuantizedRows.layoutOf(this.dimension), rows, unbounded };
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const f = this.floats();
      const base = this.matrixOffset() / 4;
      f.copyWithin(base + row * this.stride, base + last * this.stride, base + (last + 1) * this.stride);
      this.int8?.move(last, row);
      this.companion?.move(last, row);
      const lastId = this.ids[last]!;
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    this.ids.pop();
    this.rowOf.delete(id);
    this.unbounded.delete(id);
    return true;
  }

  /** Cosine of `query` with the stored vector for `id`, or undefined. */
  similarity(id: string, query: Float32Array): number | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    const f = this.floats();
    const start = this.matrixOffset() / 4 + row * this.stride;
    let sum = 0;
    for (let j = 0; j < this.dimension; j++) sum += f[start + j]! * query[j]!;
    return sum;
  }

  vector(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    const start = this.matrixOffset() / 4 + row * this.stride;
    return this.floats().slice(start, start + this.dimension);
  }

  /** The `k` rows most similar to `query` (exact), best first. `accept` filters rows before they compete. */
  topK(query: Float32Array, k: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const n = this.ids.length;
    if (n === 0 || k <= 0) return [];
    this.placeQuery(query);
    const bounds = this.boundsOf(query);
    const heap = bounds ? this.rescore(candidates(bounds.lo, bounds.hi, k, accept && ((row) => accept(this.ids[row]!))), k) : this.scan(k, accept);
    return heap.sorted().map(({ row, score }) => ({ id: this.ids[row]!, score }));
  }

  /**
   * Bounds on every row's score with `query`, the very score `topK` gives
   * (row r is `idAt(r)`): from the int8 copy where topK would use it, else
   * the f32 scores themselves (`exact`). The views are scratch, valid until
   * the next call on the matrix other than `scoresOf`.
   */
  scoreBounds(query: Float32Array): ScoreBounds {
    const n = this.ids.length;
    this.placeQuery(query);
    const bounds = this.boundsOf(query);
    if (bounds) return { ...bounds, exact: false };
    const scores = this.scoreRows(n);
    this.rescored = n;
    return { lo: scores, hi: scores, exact: true };
  }

  /**
   * The exact scores of `rows` with the query of the last `scoreBounds`
   * (bit for bit those of `topK`), in the order given; scores them in f32
   * only when the bounds were not already exact.
   */
  scoresOf(rows: readonly number[], bounds: ScoreBounds): Float32Array {
    if (bounds.exact) return Float32Array.from(rows, (row) => bounds.lo[row]!);
    this.rescored = rows.length;
    return this.kernelScores(rows).slice();
  }

  /** The f32 scores of `rows` with `query`, bit for bit those `topK` gives them, in the order given (for a few chosen rows). */
  scoresFor(query: Float32Array, rows: readonly number[]): Float32Array {
    this.placeQuery(query);
    this.rescored = rows.length;
    return this.kernelScores(rows).slice();
  }

  /** Scores every row in f32 (the query is in place) and keeps the k best accepted ones. */
  private scan(k: number, accept?: (id: string) => boolean): TopK {
    const n = this.ids.length;
    const scores = this.scoreRows(n);
    const heap = new TopK(k);
    for (let row = 0; row < n; row++) {
      const score = scores[row]!;
      if (!heap.wouldAccept(score, row)) continue;
      if (accept && !accept(this.ids[row]!)) continue;
      heap.push(row, score);
    }
    this.rescored = n;
    return heap;
  }

  /**
   * Scores `rows` (accepted, ascending) in f32 with the same kernel as `scan`,
   * so each gets the very score `scan` would give it, and keeps the k best.
   */
  private rescore(rows: number[], k: number): TopK {
    const heap = new TopK(k);
    const n = this.ids.length;
    if (rows.length * 4 > n) {
      // Many candidates (a filter that accepts few rows, a zero query): one pass over all is cheaper.
      const scores = this.scoreRows(n);
      for (const row of rows) if (heap.wouldAccept(scores[row]!, row)) heap.push(row, scores[row]!);
    } else {
      const scores = this.kernelScores(rows);
      for (let i = 0; i < rows.length; i++) if (heap.wouldAccept(scores[i]!, rows[i]!)) heap.push(rows[i]!, scores[i]!);
    }
    this.rescored = rows.length;
    return heap;
  }

  /** Scores `rows` one by one with the query in place (scratch view, in the order given). */
  private kernelScores(rows: readonly number[]): Float32Array {
    if (rows.length * 4 > this.ids.length) {
      const scores = this.scoreRows(this.ids.length);
      return Float32Array.from(rows, (row) => scores[row]!);
    }
    const out = this.outOffset();
    const bytes = this.stride * 4;
    for (let i = 0; i < rows.length; i++) this.kernel.scores(this.matrixOffset() + rows[i]! * bytes, 0, out + i * 4, 1, this.stride);
    return new Float32Array(this.kernel.buffer(), out, rows.length);
  }

  /** Puts the query where the kernel reads it (zero-padded to the stride). */
  private placeQuery(query: Float32Array): void {
    const f = this.floats();
    f.set(query, 0);
    f.fill(0, Math.min(query.length, this.dimension), this.stride);
  }

  /** The int8 bounds of every row, or undefined where the f32 scan must run. */
  private boundsOf(query: Float32Array): { lo: Float32Array; hi: Float32Array } | undefined {
    // A query of another length than the rows' scans in f32, as it always did (the bounds assume equal lengths).
    if (!this.int8 || this.unbounded.size > 0 || query.length !== this.dimension) return undefined;
    return this.int8.bounds(query, this.ids.length);
  }

  /** Scores the first `count` rows against the query in place. */
  private scoreRows(count: number): Float32Array {
    this.kernel.scores(this.matrixOffset(), 0, this.outOffset(), count, this.stride);
    return new Float32Array(this.kernel.buffer(), this.outOffset(), count);
  }

  private floats(): Float32Array {
    return new Float32Array(this.kernel.buffer());
  }

  private matrixOffset(): number {
    return this.stride * 4;
  }

  private outOffset(): number {
    return this.matrixOffset() + this.capacity * this.stride * 4;
  }

  private bytesFor(capacity: number): number {
    return this.stride * 4 + capacity * this.stride * 4 + capacity * 4;
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    let capacity = this.capacity;
    while (capacity < rows) capacity *= 2;
    this.kernel.grow(this.bytesFor(capacity));
    this.int8?.reserve(capacity);
    this.companion?.reserve(capacity);
    this.capacity = capacity;
  }
}

/**
 * The rows that may be among the k best accepted rows, ascending, given
 * `lo[r] ≤ S[r] ≤ hi[r]` for every row's exact score S[r]; every row returned
 * is accepted, and `accept` is asked only about rows that could still win.
 *
 * Why no row of the top k is lost: let B be the k-th largest `lo` among the
 * accepted rows seen so far (−∞ while fewer than k); B only rises. Those k
 * accepted rows have S ≥ lo ≥ B. A row with hi < B has S ≤ hi < B, so k
 * accepted rows beat it strictly: it is not among the k best under any
 * tie-break. Hence skipping a row whose hi is below B when it is reached, and
 * dropping at the end the kept rows whose hi is below the final B, drops only
 * rows outside the top k; rows that `accept` rejects are outside it too. So
 * the result contains the k best accepted rows (all accepted rows when fewer
 * than k), and the k best of it under a total order are the k best overall.
 */
function candidates(lo: Float32Array, hi: Float32Array, k: number, accept?: (row: number) => boolean): number[] {
  const n = lo.length;
  const best = new TopK(Math.min(k, n));
  const kept: number[] = [];
  let bar = -Infinity;
  for (let row = 0; row < n; row++) {
    if (hi[row]! < bar) continue;
    if (accept && !accept(row)) continue;
    kept.push(row);
    if (best.wouldAccept(lo[row]!, row)) {
      best.push(row, lo[row]!);
      bar = best.floor();
    }
  }
  let m = 0;
  for (const row of kept) if (hi[row]! >= bar) kept[m++] = row;
  kept.length = m;
  return kept;
}
