import { DOT_I8_WASM_BASE64 } from './dot-i8-wasm.js';
import { arrayMemory, compileWasm, instantiate, type KernelMemory } from './memory.js';

/**
 * Bounds on every row's f32 score from its int8 copy: see dot-i8.wat for what
 * `bounds` computes and quantized-rows.ts for the layout and the proof. Two
 * implementations: WebAssembly SIMD and a JS loop that computes the same
 * quantities in f64 (only rounding to f32 at the store, so its bounds are at
 * least as tight as the proof assumes).
 */
export interface I8Kernel extends KernelMemory {
  readonly simd: boolean;
  bounds(
    matOffset: number,
    queryOffset: number,
    loOffset: number,
    hiOffset: number,
    rows: number,
    stride: number,
    queryScale: number,
    alpha: number,
    beta: number,
    eta: number,
  ): void;
}

export function createI8Kernel(initialBytes: number, options: { simd?: boolean } = {}): I8Kernel {
  const module = options.simd === false ? null : compileWasm(DOT_I8_WASM_BASE64);
  if (module) {
    const { exports, memory } = instantiate(module, initialBytes);
    return { simd: true, ...memory, bounds: exports.bounds as I8Kernel['bounds'] };
  }

  const memory = arrayMemory(initialBytes);
  return {
    simd: false,
    ...memory,
    bounds(matOffset, queryOffset, loOffset, hiOffset, rows, stride, queryScale, alpha, beta, eta) {
      const buffer = memory.buffer();
      const codes = new Int8Array(buffer);
      const query = new Int16Array(buffer, queryOffset, stride);
      const f = new Float32Array(buffer);
      const lo = loOffset >> 2;
      const hi = hiOffset >> 2;
      let row = matOffset;
      for (let r = 0; r < rows; r++) {
        // Four int32 accumulators (exact: |sum| < 2³¹, see QuantizedRows.supports).
        let d0 = 0;
        let d1 = 0;
        let d2 = 0;
        let d3 = 0;
        for (let j = 0; j < stride; j += 4) {
          d0 = (d0 + codes[row + j]! * query[j]!) | 0;
          d1 = (d1 + codes[row + j + 1]! * query[j + 1]!) | 0;
          d2 = (d2 + codes[row + j + 2]! * query[j + 2]!) | 0;
          d3 = (d3 + codes[row + j + 3]! * query[j + 3]!) | 0;
        }
        const meta = (row + stride) >> 2;
        const approx = (d0 + d1 + d2 + d3) * f[meta]! * queryScale;
        const eps = f[meta + 1]! * alpha + f[meta + 2]! * beta + eta;
        f[lo + r] = approx - eps;
        f[hi + r] = approx + eps;
        row += stride + 16;
      }
    },
  };
}
