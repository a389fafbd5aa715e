/**
 * Exact nearest-neighbour search over one contiguous Float32Array.
 *
 * Rows are unit vectors, so the dot product is the cosine. Deletes swap the
 * last row into the hole, keeping the matrix dense (scans touch no gaps).
 * Capacity grows by doubling, so inserts are amortised O(dimension).
 */
export class VectorMatrix {
  readonly dimension: number;
  private data: Float32Array;
  private ids: string[] = [];
  private rowOf = new Map<string, number>();

  constructor(dimension: number, initialCapacity = 64) {
    this.dimension = dimension;
    this.data = new Float32Array(dimension * Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
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
    this.data.set(vector, row * this.dimension);
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
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
    return row === undefined ? undefined : dot(this.data, row * this.dimension, query, this.dimension);
  }

  vector(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    if (row === undefined) return undefined;
    return this.data.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /**
   * The `k` rows most similar to `query` (exact), best first. `accept` filters
   * rows before they compete for a place.
   */
  topK(query: Float32Array, k: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const heap = new TopK(k);
    const d = this.dimension;
    const n = this.ids.length;
    for (let row = 0; row < n; row++) {
      const score = dot(this.data, row * d, query, d);
      if (!heap.wouldAccept(score)) continue;
      if (accept && !accept(this.ids[row]!)) continue;
      heap.push(row, score);
    }
    return heap.sorted().map(({ row, score }) => ({ id: this.ids[row]!, score }));
  }

  private ensureCapacity(rows: number): void {
    if (rows * this.dimension <= this.data.length) return;
    let capacity = this.data.length / this.dimension;
    while (capacity < rows) capacity *= 2;
    const next = new Float32Array(capacity * this.dimension);
    next.set(this.data.subarray(0, this.ids.length * this.dimension));
    this.data = next;
  }
}

/** Dot product of a row of `matrix` (starting at `offset`) with `query`; unrolled by 4 for V8. */
function dot(matrix: Float32Array, offset: number, query: Float32Array, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += matrix[offset + i]! * query[i]!;
    s1 += matrix[offset + i + 1]! * query[i + 1]!;
    s2 += matrix[offset + i + 2]! * query[i + 2]!;
    s3 += matrix[offset + i + 3]! * query[i + 3]!;
  }
  for (; i < d; i++) s0 += matrix[offset + i]! * query[i]!;
  return s0 + s1 + s2 + s3;
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
