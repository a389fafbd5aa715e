import { cosineCandidates } from './cosine-candidates.js';
import { SplitRows } from './simd/split-rows.js';
import { TopK } from './top-k.js';

export interface VectorMatrixOptions {
  /** Rows to allocate for at first (capacity then grows a block at a time: simd/split-rows.ts). */
  initialCapacity?: number;
  /** false: score in JS even where WebAssembly SIMD is available. */
  simd?: boolean;
  /**
   * Bound every row's score from the high halves of its components first
   * (a bfloat16 scan, half the memory traffic) and score exactly only the
   * rows the bounds cannot rule out. Results are identical either way; false
   * scores every row exactly. Default: true where scoring runs in
   * WebAssembly SIMD (where the scan is bound by memory traffic: see bench/vector-scan.ts),
   * false for the JS fallback (where the bounds pass is no faster).
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

/** Bounds on every row's exact score with one query, `lo[r] ≤ score ≤ hi[r]`; `exact` when they are the scores themselves. */
export interface ScoreBounds {
  lo: Float32Array;
  hi: Float32Array;
  exact: boolean;
  /**
   * The rows whose `hi` is not ≤ `threshold`, ascending, and the largest `hi`: what a walk over every
   * row would find, from a kernel (valid until the next call on the matrix). Absent when the bounds are exact.
   */
  above?(threshold: number): { rows: Int32Array; largest: number };
}

/** The bounds' per-row metadata (simd/split-rows.ts), as the index snapshot keeps it next to the f32 rows. */
export interface QuantizedRun {
  /** `SplitRows.layoutOf(dimension)` when the metadata was copied out: metadata of another layout is computed again. */
  layout: string;
  /** The rows' metadata, end to end (`SplitRows.metadataBytes` a row). */
  rows: Uint8Array;
  /** Indexes (within the run) of rows whose scores cannot be bounded. */
  unbounded: readonly number[];
}

/**
 * Exact nearest-neighbour search over one block of f32 rows.
 *
 * Rows are unit vectors, so the dot product is the cosine. Each row is
 * stored once, split into the high and the low halves of its components
 * (simd/split-rows.ts); scoring runs in WebAssembly SIMD where available;
 * top-k selection is a bounded heap in JS. Deletes move the last row into
 * the hole, so the rows stay dense; capacity grows a block of at most 2,048
 * rows at a time, so at most one block is empty.
 *
 * With `quantize` (the default where SIMD runs) topK first bounds every
 * row's score from its high halves, keeps the rows whose upper bound reaches
 * the k-th best lower bound (see cosine-candidates.ts), and scores only those
 * exactly: the same ids and the same float scores as scoring every row
 * exactly, at about half the memory traffic.
 *
 * Ties: among equal scores the lower row wins and comes first (rows are in
 * insertion order, except that a delete moves the last row into its hole), so
 * a result is the k best under (score descending, row ascending), whichever
 * path computed it.
 */
export class VectorMatrix {
  readonly dimension: number;
  private readonly rows: SplitRows;
  private readonly prefilter: boolean;
  /** Ids of rows whose scores cannot be bounded (a non-finite component, a huge norm): while any is stored, topK scores every row exactly. */
  private readonly unbounded = new Set<string>();
  /** Rows the companion has room for (grown by an eighth: its arrays are copied when they grow). */
  private companionCapacity: number;
  private ids: string[] = [];
  private rowOf = new Map<string, number>();
  private rescored = 0;
  private walked = 0;
  private readonly companion: RowCompanion | undefined;

  constructor(dimension: number, options: VectorMatrixOptions = {}) {
    this.dimension = dimension;
    const capacity = Math.max(1, options.initialCapacity ?? 64);
    this.rows = new SplitRows(dimension, capacity, { simd: options.simd });
    this.prefilter = options.quantize ?? this.rows.simd;
    this.companion = options.companion;
    this.companionCapacity = capacity;
    this.companion?.reserve(capacity);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Whether scoring runs in WebAssembly SIMD. */
  get simd(): boolean {
    return this.rows.simd;
  }

  /** Whether topK bounds every row from its high halves first (see the class comment). */
  get quantized(): boolean {
    return this.prefilter;
  }

  /** Bytes the rows hold (a WebAssembly.Memory, or an ArrayBuffer in the JS fallback), scratch and spare capacity included. */
  get bytes(): number {
    return this.rows.bytes;
  }

  /** How many rows the last topK scored exactly: the candidates, or every row for a full scan. */
  get lastRescored(): number {
    return this.rescored;
  }

  /** How many rows' bounds the last bounded topK walked in JS (see cosine-candidates.ts): every row, or the first rows and those the kernel handed on. */
  get lastWalked(): number {
    return this.walked;
  }

  /**
   * Makes room for `rows` rows at once (a bulk load that knows its size):
   * one growth of the WebAssembly memory instead of one per block, each of
   * which costs the JS heap a collection (V8 counts the memory as external).
   */
  reserve(rows: number): void {
    this.ensureCapacity(rows);
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
    if (this.rows.write(row, vector)) this.unbounded.delete(id);
    else this.unbounded.add(id);
  }

  /**
   * Appends rows in bulk (opening an index): `vectors` holds one row per id,
   * end to end, and `quantized` their bounds' metadata as `quantizedRows`
   * gave it, if it was kept. Capacity grows at most once; metadata that is missing or of another layout is computed here, as
   * `upsert` would. The ids must not be in the matrix yet.
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
    const fits = quantized && quantized.layout === SplitRows.layoutOf(this.dimension) && quantized.rows.length === count * SplitRows.metadataBytes;
    const unbounded = this.rows.writeMany(first, vectors, count, fits ? quantized.rows : undefined);
    for (const id of ids) this.ids.push(id);
    for (const i of unbounded) this.unbounded.add(ids[i]!);
  }

  /** The bounds' metadata of `ids`' rows, in the form `append` takes back; undefined when an id is missing. */
  quantizedRows(ids: readonly string[]): QuantizedRun | undefined {
    const metadata = new Float32Array((ids.length * SplitRows.metadataBytes) / 4);
    const perRow = SplitRows.metadataBytes / 4;
    const unbounded: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const row = this.rowOf.get(ids[i]!);
      if (row === undefined) return undefined;
      this.rows.metadataInto(row, metadata, i * perRow);
      if (this.unbounded.has(ids[i]!)) unbounded.push(i);
    }
    return { layout: SplitRows.layoutOf(this.dimension), rows: new Uint8Array(metadata.buffer), unbounded };
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      this.rows.move(last, row);
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
    const vector = this.vector(id);
    if (!vector) return undefined;
    let sum = 0;
    for (let j = 0; j < this.dimension; j++) sum += vector[j]! * query[j]!;
    return sum;
  }

  vector(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    return row === undefined ? undefined : this.rows.read(row);
  }

  /** Writes the stored vector of `id` into `out` from `offset`; false (nothing written) when the matrix lacks it. */
  vectorInto(id: string, out: Float32Array, offset: number): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    this.rows.readInto(row, out, offset);
    return true;
  }

  /** The `k` rows most similar to `query` (exact), best first. `accept` filters rows before they compete. */
  topK(query: Float32Array, k: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const n = this.ids.length;
    if (n === 0 || k <= 0) return [];
    const bounds = this.boundsOf(query);
    const heap = bounds
      ? this.rescore(this.candidates(bounds, k, accept), k)
      : this.scan(k, accept);
    return heap.sorted().map(({ row, score }) => ({ id: this.ids[row]!, score }));
  }

  /**
   * Bounds on every row's score with `query`, the very score `topK` gives
   * (row r is `idAt(r)`): from the high halves where topK would use them,
   * else the exact scores themselves (`exact`). The views are scratch, valid
   * until the next call on the matrix other than `scoresOf`.
   */
  scoreBounds(query: Float32Array): ScoreBounds {
    const n = this.ids.length;
    const bounds = this.boundsOf(query);
    if (bounds) return { ...bounds, exact: false, above: (threshold) => this.rows.above(n, threshold) };
    const scores = this.rows.scores(n);
    this.rescored = n;
    return { lo: scores, hi: scores, exact: true };
  }

  /**
   * The exact scores of `rows` with the query of the last `scoreBounds`
   * (bit for bit those of `topK`), in the order given; scores them only when
   * the bounds were not already exact.
   */
  scoresOf(rows: readonly number[], bounds: ScoreBounds): Float32Array {
    if (bounds.exact) return Float32Array.from(rows, (row) => bounds.lo[row]!);
    this.rescored = rows.length;
    return this.rows.scoresOf(rows).slice();
  }

  /** The exact scores of `rows` with `query`, bit for bit those `topK` gives them, in the order given (for a few chosen rows). */
  scoresFor(query: Float32Array, rows: readonly number[]): Float32Array {
    this.rows.placeQuery(query);
    this.rescored = rows.length;
    return this.rows.scoresOf(rows).slice();
  }

  private candidates(bounds: { lo: Float32Array; hi: Float32Array }, k: number, accept?: (id: string) => boolean): number[] {
    const found = cosineCandidates(bounds.lo, bounds.hi, k, accept && ((row) => accept(this.ids[row]!)), (threshold) => this.rows.above(this.ids.length, threshold).rows);
    this.walked = found.walked;
    return found.rows;
  }

  /** Scores every row exactly and keeps the k best accepted ones. */
  private scan(k: number, accept?: (id: string) => boolean): TopK {
    const n = this.ids.length;
    const scores = this.rows.scores(n);
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

  /** Scores `rows` (accepted, ascending) exactly, each bit for bit as `scan` would, and keeps the k best. */
  private rescore(rows: number[], k: number): TopK {
    const heap = new TopK(k);
    const n = this.ids.length;
    // Many candidates (a filter that accepts few rows, a zero query): one pass over all is cheaper.
    const all = rows.length * 4 > n ? this.rows.scores(n) : undefined;
    const scores = all ?? this.rows.scoresOf(rows);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const score = all ? all[row]! : scores[i]!;
      if (heap.wouldAccept(score, row)) heap.push(row, score);
    }
    this.rescored = rows.length;
    return heap;
  }

  /** The bounds of every row (the query placed), or undefined where every row must be scored exactly (the query placed too). */
  private boundsOf(query: Float32Array): { lo: Float32Array; hi: Float32Array } | undefined {
    // A query of another length than the rows' is scored exactly, as it always was (the bounds assume equal lengths).
    const bounds = this.prefilter && this.unbounded.size === 0 && query.length === this.dimension ? this.rows.bounds(query, this.ids.length) : undefined;
    if (!bounds) this.rows.placeQuery(query);
    return bounds;
  }

  /** Makes room for `rows` rows: the matrix's blocks exactly, the companion by an eighth at least. */
  private ensureCapacity(rows: number): void {
    this.rows.reserve(rows);
    if (rows <= this.companionCapacity) return;
    this.companionCapacity = Math.max(rows, this.companionCapacity + Math.max(64, Math.ceil(this.companionCapacity / 8)));
    this.companion?.reserve(this.companionCapacity);
  }
}
