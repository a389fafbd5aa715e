import { DOT_WASM_BASE64 } from './dot-wasm.js';
import { arrayMemory, compileWasm, instantiate, type KernelMemory } from './memory.js';

/**
 * Computes `out[r] = matrix[r] · query` for every row. Two implementations
 * share one memory layout: WebAssembly SIMD (about 4x faster, used wherever
 * the runtime supports it: Node ≥ 16.4, Chrome ≥ 91, Firefox ≥ 89,
 * Safari ≥ 16.4) and a plain JS loop as the fallback.
 *
 * Layout of the buffer (all f32, rows padded with zeros to `stride`, a
 * multiple of 8): [query: stride][matrix: capacity × stride][out: capacity].
 *
 * Each row's score depends only on that row and the query, so scoring one
 * row alone (`rows` = 1 at that row's offset) gives the same bits as scoring
 * it within the whole matrix: the int8 path's exact re-rank relies on it.
 */
export interface DotKernel extends KernelMemory {
  readonly simd: boolean;
  scores(matOffset: number, queryOffset: number, outOffset: number, rows: number, stride: number): void;
}

export function createDotKernel(initialBytes: number, options: { simd?: boolean } = {}): DotKernel {
  const module = options.simd === false ? null : compileWasm(DOT_WASM_BASE64);
  if (module) {
    const { exports, memory } = instantiate(module, initialBytes);
    return { simd: true, ...memory, scores: exports.scores as DotKernel['scores'] };
  }

  const memory = arrayMemory(initialBytes);
  return {
    simd: false,
    ...memory,
    scores(matOffset, queryOffset, outOffset, rows, stride) {
      const f = new Float32Array(memory.buffer());
      const m0 = matOffset >> 2;
      const q0 = queryOffset >> 2;
      const o0 = outOffset >> 2;
      for (let r = 0; r < rows; r++) {
        const row = m0 + r * stride;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let j = 0; j < stride; j += 4) {
          s0 += f[row + j]! * f[q0 + j]!;
          s1 += f[row + j + 1]! * f[q0 + j + 1]!;
          s2 += f[row + j + 2]! * f[q0 + j + 2]!;
          s3 += f[row + j + 3]! * f[q0 + j + 3]!;
        }
        f[o0 + r] = s0 + s1 + s2 + s3;
      }
    },
  };
}
