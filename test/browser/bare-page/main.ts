import { createMemory, type MemoryOptions } from 'engram';
import { transformersWorker } from 'engram/transformers';

/**
 * A page with nothing but the packaged SDK, for browser tests that reload or
 * kill the page many times (crash tests): the demo page opens its own memory
 * (a second worker and model load) and draws its inspector at every start,
 * which a test that opens its own memory does not need. It exposes the same
 * test hook as the demo (`window.engramDemo.open`, `.ready`), on the same
 * offline model and Web Worker path, so test/support/test-memory-page.ts
 * drives both.
 */
const embedder = {
  model: 'minishlab/potion-base-4M-int8',
  localModelPath: `${location.origin}/models/`,
  allowRemoteModels: false,
  wasmPaths: `${location.origin}/ort/`,
};
/**
 * `embedderOverrides`: e.g. `{ runtime: 'onnx' }` (bench/browser/model-start.ts compares the two runtimes),
 * which needs the engine worker of `engram/transformers`.
 */
const open = (options: Omit<MemoryOptions, 'embedder'>, embedderOverrides: Record<string, unknown> = {}) =>
  createMemory({ embedder: { ...embedder, ...embedderOverrides }, ...(embedderOverrides.runtime === 'onnx' ? { worker: transformersWorker } : {}), ...options });
(window as unknown as { engramDemo: unknown }).engramDemo = { ready: true, open };
