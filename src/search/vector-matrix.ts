import { createDotKernel, type DotKernel } from './simd/dot-kernel.js';

/**
 * Exact nearest-neighbour search over one contiguous block of f32 rows.
 *
 * Rows are unit vectors, so the dot product is the cosine. Scoring every row
 * runs in WebAssembly SIMD where available (see simd/dot-kernel.ts); top-k
 * selection is a bounded heap in JS. Deletes move the last row into the hole,
 * so the block stays dense; capacity doubles as it fills.
 */
export class VectorMatrix {
  readonly dimension: number;
  /** Row length in floats: the dimension padded with zeros to a multiple of 8 (the SIMD kernel's step). */
  private readonly stride: number;
  private readonly kernel: DotKernel;
  private capacity: number;
  private ids: string[] = [];
  private rowOf = new Map<string, number>();

  constructor(dimension: number, options: { initialCapacity?: number; simd?: boolean } = {}) {
    this.dimension = dimension;
    this.stride = Math.ceil(dimension / 8) * 8;
    this.capacity = Math.max(1, options.initialCapacity ?? 64);
    this.kernel = createDotKernel(this.bytesFor(this.capacity), { simd: options.simd });
  }

  get size(): number {
    return this.ids.length;
  }

  /** Whether scoring runs in WebAssembly SIMD. */
  get simd(): boolean {
    return this.kernel.simd;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
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
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const f = this.floats();
      const base = this.matrixOffset() / 4;
      f.copyWithin(base + row * this.stride, base + last * this.stride, base + (last + 1) * this.stride);
      const lastId = this.ids[last]!;
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    this.ids.pop();
    this.rowOf.delete(id);
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
    const f = this.floats();
    f.set(query, 0);
    f.fill(0, this.dimension, this.stride);
    const outOffset = this.outOffset();
    this.kernel.scores(this.matrixOffset(), 0, outOffset, n, this.stride);
    const scores = new Float32Array(this.kernel.buffer(), outOffset, n);

    const heap = new TopK(k);
    for (let row = 0; row < n; row++) {
      const score = scores[row]!;
      if (!heap.wouldAccept(score)) continue;
      if (accept && !accept(this.ids[row]!)) continue;
      heap.push(row, score);
    }
    return heap.sorted().map(({ row, score }) => ({ id: this.ids[row]!, score }));
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
    this.capacity = capacity;
  }
}

/** A bounded min-heap keeping the k best (row, score) pairs. */
class TopK {
  private rows: number[] = [];
  private scores: number[] = [];
  constructor(private readonly k: number) {}

  wouldAccept(score: number): boolean {
    return this.rows.length < this.k || score > this.scores[0]!;
  }

  push(row: number, score: number): void {
    if (this.rows.length < this.k) {
      this.rows.push(row);
      this.scores.push(score);
      this.siftUp(this.rows.length - 1);
    } else {
      this.rows[0] = row;
      this.scores[0] = score;
      this.siftDown(0);
    }
  }

  sorted(): { row: number; score: number }[] {
    return this.rows.map((row, i) => ({ row, score: this.scores[i]! })).sort((a, b) => b.score - a.score);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent]! <= this.scores[i]!) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.rows.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < n && this.scores[l]! < this.scores[smallest]!) smallest = l;
      if (r < n && this.scores[r]! < this.scores[smallest]!) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.rows[a], this.rows[b]] = [this.rows[b]!, this.rows[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}
