import { F32_SCAN_WASM_BASE64 } from './f32-scan-wasm.js';

/**
 * The floors every exact vector search in the benchmarks is compared with:
 * the best simple code, with no index and no bounds. One contiguous f32
 * matrix (rows zero-padded to a multiple of 8), every row scored against the
 * query, and the k best kept by a threshold check with a small sorted insert
 * (a row below the current k-th best costs one comparison).
 *
 * - `wasm`: the scores by a WebAssembly SIMD kernel (f32x4, two accumulators;
 *   f32-scan.wat), memory sized to the rows exactly.
 * - `js`: the scores by a JS loop with four accumulators over a Float32Array.
 */
export class F32Floor {
  readonly dimension: number;
  private readonly stride: number;
  private readonly memory: WebAssembly.Memory | undefined;
  private readonly kernel: ((mat: number, q: number, out: number, rows: number, stride: number) => void) | undefined;
  private buffer: ArrayBuffer;
  private count = 0;

  constructor(
    dimension: number,
    readonly capacity: number,
    readonly kind: 'wasm' | 'js',
  ) {
    this.dimension = dimension;
    this.stride = Math.ceil(dimension / 8) * 8;
    const bytes = (this.stride + capacity * this.stride + capacity) * 4;
    if (kind === 'wasm') {
      const module = new WebAssembly.Module(Uint8Array.from(atob(F32_SCAN_WASM_BASE64), (c) => c.charCodeAt(0)));
      this.memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65_536) });
      this.kernel = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports.scores as F32Floor['kernel'];
      this.buffer = this.memory.buffer as ArrayBuffer;
    } else {
      this.buffer = new ArrayBuffer(bytes);
    }
  }

  /** Bytes held: the WebAssembly memory or the ArrayBuffer. */
  get bytes(): number {
    return this.buffer.byteLength;
  }

  get size(): number {
    return this.count;
  }

  /** Appends rows given end to end. */
  add(vectors: Float32Array): void {
    const rows = vectors.length / this.dimension;
    if (this.count + rows > this.capacity) throw new RangeError(`the floor holds ${this.capacity} rows`);
    const f = new Float32Array(this.buffer);
    for (let i = 0; i < rows; i++) {
      f.set(vectors.subarray(i * this.dimension, (i + 1) * this.dimension), this.stride * (1 + this.count + i));
    }
    this.count += rows;
  }

  /** The whole matrix as stored (rows padded to the stride), for persisting it as one value. */
  rows(): Float32Array {
    return new Float32Array(this.buffer, this.stride * 4, this.count * this.stride);
  }

  /** Restores `rows()` of another floor of the same dimension. */
  restore(rows: Float32Array): void {
    new Float32Array(this.buffer).set(rows, this.stride);
    this.count = rows.length / this.stride;
  }

  /** Row indexes of the k best scores, best first. */
  topK(query: Float32Array, k: number): number[] {
    const f = new Float32Array(this.buffer);
    f.fill(0, 0, this.stride);
    f.set(query, 0);
    const out = this.stride * (1 + this.capacity);
    const n = this.count;
    if (this.kernel) {
      this.kernel(this.stride * 4, 0, out * 4, n, this.stride);
    } else {
      const s = this.stride;
      for (let r = 0; r < n; r++) {
        const row = s * (1 + r);
        let a = 0;
        let b = 0;
        let c = 0;
        let d = 0;
        for (let j = 0; j < s; j += 4) {
          a += f[row + j]! * f[j]!;
          b += f[row + j + 1]! * f[j + 1]!;
          c += f[row + j + 2]! * f[j + 2]!;
          d += f[row + j + 3]! * f[j + 3]!;
        }
        f[out + r] = a + b + c + d;
      }
    }
    // The k best, kept sorted (descending); a row below the k-th best costs one comparison.
    const ids: number[] = [];
    const scores: number[] = [];
    let bar = -Infinity;
    for (let r = 0; r < n; r++) {
      const score = f[out + r]!;
      if (score <= bar && ids.length === k) continue;
      let at = ids.length;
      while (at > 0 && scores[at - 1]! < score) at--;
      ids.splice(at, 0, r);
      scores.splice(at, 0, score);
      if (ids.length > k) {
        ids.pop();
        scores.pop();
      }
      if (ids.length === k) bar = scores[k - 1]!;
    }
    return ids;
  }
}
