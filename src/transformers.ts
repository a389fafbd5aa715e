/**
 * engram/transformers: a transformer embedding model (all-MiniLM-L6-v2 and
 * the like) on the ONNX runtime, for apps that ask for one. engram's default
 * model is a static one that needs neither transformers.js nor the ONNX
 * runtime, so nothing in `engram` names them: importing this subpath is what
 * makes a bundler emit them (transformers.js's chunk and onnxruntime-web's
 * large `.wasm`), and only into the apps that do.
 *
 *   import { createMemory } from 'engram';
 *   import { transformersWorker } from 'engram/transformers';
 *   const memory = await createMemory({ name: 'my-app', embedder: { model: 'Xenova/all-MiniLM-L6-v2' }, worker: transformersWorker });
 *
 * The model's files are fetched from the Hugging Face hub unless
 * `localModelPath` names a folder (or URL prefix) holding them. In Node,
 * `@huggingface/transformers` is the app's own install (an optional peer) and
 * this subpath is not needed.
 */
import type { Embedder, ProgressListener } from './schema/embedder.js';
import { provideTransformers } from './embed/import-transformers.js';
import { loadTransformersEmbedder as loadEmbedder } from './embed/load-embedder.js';
import type { TransformersEmbedderOptions } from './embed/transformers-embedder.js';

/**
 * engram's engine worker with transformers.js and the ONNX runtime in it:
 * pass it as `createMemory({ worker: transformersWorker })`. Written in the
 * form Vite, webpack and Turbopack recognise, so they bundle it with its chunks.
 */
export function transformersWorker(): Worker {
  return new Worker(new URL('./engine.transformers.worker.js', import.meta.url), { type: 'module' });
}

/**
 * An embedder on any model, with transformers.js available in this context:
 * for an engine that runs in-process in a browser (`worker: false`, an
 * extension's service worker), pass the result as `embedder`. In Node it is
 * the same as `loadTransformersEmbedder` from `engram`.
 */
export function loadTransformersEmbedder(options: TransformersEmbedderOptions = {}, onProgress?: ProgressListener): Promise<Embedder> {
  provideTransformers(() => import('./embed/transformers.browser.js'));
  return loadEmbedder(options, onProgress);
}

export type { TransformersEmbedderOptions };
