import { lazyChunkError } from '../lazy-chunk.js';
import type { Embedder, ProgressListener } from '../schema/embedder.js';
import type { TransformersEmbedderOptions } from './transformers-embedder.js';

/**
 * The public `loadTransformersEmbedder`: the loader (./transformers-embedder.ts,
 * with the static-model reader and the transformers.js import) is fetched
 * when an app calls it, so a page that lets the worker embed does not carry it.
 */
export async function loadTransformersEmbedder(options: TransformersEmbedderOptions = {}, onProgress?: ProgressListener): Promise<Embedder> {
  const loader = await import('./transformers-embedder.js').catch((cause: unknown) => {
    throw lazyChunkError('its embedder loader', cause, { embedder: true });
  });
  return loader.loadTransformersEmbedder(options, onProgress);
}
