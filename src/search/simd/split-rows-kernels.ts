import { arrayMemory, compileWasm, instantiate, type KernelMemory } from './memory.js';
import { SPLIT_ROWS_WASM_BASE64 } from './split-rows-wasm.js';

/** The kernels of split-rows.wat over one growable buffer. */
export interface Kernels extends KernelMemory {
  readonly simd: boolean;
  bounds(rows: number, meta: number, query: number, lo: number, hi: number, count: number, stride: number, alpha: number, beta: number, eta: number): void;
  scores(rows: number, lows: number, query: number, out: number, count: number, stride: number): void;
  /** Splits `count` f32 rows of `d` components at `src` into their high and low halves' planes (planar rows only: WebAssembly). */
  split?(src: number, count: number, d: number, stride: number, high: number, low: number): void;
  /** Writes the indexes of the f32 values at `hi` (of `count`) not ≤ `threshold` to `out` (i32), returns how many. */
  above(hi: number, count: number, threshold: number, out: number): number;
  /** The largest value the last `above` read (−∞ for none; NaN never). */
  largest(): number;
}

export function createKernels(initialBytes: number, options: { simd?: boolean }): Kernels {
  const module = options.simd === false ? null : compileWasm(SPLIT_ROWS_WASM_BASE64);
  if (module) {
    const { exports, memory } = instantiate(module, initialBytes);
    return {
      simd: true,
      ...memory,
      bounds: exports.bounds as Kernels['bounds'],
      scores: exports.scores as Kernels['scores'],
      split: exports.split as Kernels['split'],
      above: exports.above as Kernels['above'],
      largest: exports.largest as Kernels['largest'],
    };
  }
  const memory = arrayMemory(initialBytes);
  let largest = -Infinity;
  // One row's high halves as f32 at a time (bounds), built in a scratch row.
  let bits = new Uint32Array(0);
  let floats = new Float32Array(0);
  /** The buffer's views and the query, with the row scratch sized to `stride`. */
  const views = (query: number, stride: number) => {
    if (bits.length !== stride) {
      bits = new Uint32Array(stride);
      floats = new Float32Array(bits.buffer);
    }
    const buffer = memory.buffer();
    return { words: new Uint32Array(buffer), f32: new Float32Array(buffer), q: new Float32Array(buffer, query, stride) };
  };
  return {
    simd: false,
    ...memory,
    // Rows here are whole f32 rows, `stride` floats apart (see SplitRows' `planar`); `lows` is unused.
    bounds(rows, meta, query, lo, hi, count, stride, alpha, beta, eta) {
      const { words, f32, q } = views(query, stride);
      for (let r = 0; r < count; r++) {
        const row = (rows >> 2) + r * stride;
        for (let j = 0; j < stride; j++) bits[j] = words[row + j]! & 0xffff0000;
        let approx = 0;
        for (let j = 0; j < stride; j++) approx += floats[j]! * q[j]!;
        const at = (meta >> 2) + r * 2;
        const eps = f32[at]! * alpha + f32[at + 1]! * beta + eta;
        f32[(lo >> 2) + r] = approx - eps;
        f32[(hi >> 2) + r] = approx + eps;
      }
    },
    scores(rows, _lows, query, out, count, stride) {
      const { f32, q } = views(query, stride);
      for (let r = 0; r < count; r++) {
        const row = (rows >> 2) + r * stride;
        // Four f64 sums (stride is a multiple of 16), added once: as fast as a JS loop over floats gets.
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let j = 0; j < stride; j += 4) {
          s0 += f32[row + j]! * q[j]!;
          s1 += f32[row + j + 1]! * q[j + 1]!;
          s2 += f32[row + j + 2]! * q[j + 2]!;
          s3 += f32[row + j + 3]! * q[j + 3]!;
        }
        f32[(out >> 2) + r] = s0 + s1 + s2 + s3;
      }
    },
    above(hi, count, threshold, out) {
      const buffer = memory.buffer();
      const values = new Float32Array(buffer, hi, count);
      const rows = new Int32Array(buffer, out, count);
      let n = 0;
      largest = -Infinity;
      for (let r = 0; r < count; r++) {
        const h = values[r]!;
        if (h > largest) largest = h;
        if (!(h <= threshold)) rows[n++] = r;
      }
      return n;
    },
    largest: () => largest,
  };
}
