import { EmbedderError } from '../errors.js';
import { embedInBatches } from './batch.js';
import { importTransformers } from './import-transformers.js';
import type { Embedder, ProgressListener } from './embedder.js';

export interface TransformersEmbedderOptions {
  /** Hub model id, or a folder name under `localModelPath`. */
  model?: string;
  /** Folder (Node) or URL prefix (browser) holding `<model>/...` files. When set, remote models are off unless `allowRemoteModels` says otherwise. */
  localModelPath?: string;
  allowRemoteModels?: boolean;
  /** Weight precision, e.g. 'q8' (quantised, the default) or 'fp32'. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
  /** Texts per model call. */
  batchSize?: number;
  /**
   * Browser only: URL prefix serving onnxruntime-web's `.wasm`/`.mjs` files.
   * By default they come from the app's own origin: the runtime file your
   * bundler emitted beside engram's worker (never a CDN).
   */
  wasmPaths?: string;
}

export const DEFAULT_EMBEDDING_MODEL = 'Xenova/all-MiniLM-L6-v2';
export const DEFAULT_BATCH_SIZE = 32;

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

// transformers.js keeps its configuration in one module-level `env`, so model
// loads are serialised: each sets `env` for itself and nobody races it.
let loadQueue: Promise<unknown> = Promise.resolve();

/**
 * Loads a transformers.js feature-extraction pipeline (mean pooling,
 * normalised) and measures its dimension by embedding a probe sentence.
 */
export async function loadTransformersEmbedder(
  options: TransformersEmbedderOptions = {},
  onProgress?: ProgressListener,
): Promise<Embedder> {
  const run = loadQueue.then(() => load(options, onProgress));
  loadQueue = run.catch(() => undefined);
  return run;
}

async function load(options: TransformersEmbedderOptions, onProgress?: ProgressListener): Promise<Embedder> {
  const model = options.model ?? DEFAULT_EMBEDDING_MODEL;
  const dtype = options.dtype ?? 'q8';
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const localModelPath = options.localModelPath;
  const allowRemoteModels = options.allowRemoteModels ?? localModelPath === undefined;

  const transformers = await importTransformers();
  const { env } = transformers;
  env.allowRemoteModels = allowRemoteModels;
  if (localModelPath !== undefined) {
    env.allowLocalModels = true;
    env.localModelPath = sameOriginPath(localModelPath.endsWith('/') ? localModelPath : `${localModelPath}/`);
  }
  const wasm = env.backends?.onnx?.wasm as { wasmPaths?: unknown } | undefined;
  // transformers.js points onnxruntime-web at a public CDN when it loads. Without
  // that, onnxruntime-web uses its own glue and the `.wasm` it references with
  // `new URL(..., import.meta.url)`, which bundlers emit into the app: same origin.
  if (wasm) wasm.wasmPaths = options.wasmPaths;

  let extractor: FeatureExtractor;
  try {
    extractor = (await transformers.pipeline('feature-extraction', model, {
      dtype,
      progress_callback: (p: { status: string; file?: string; progress?: number; loaded?: number; total?: number }) => {
        if (!onProgress) return;
        if (p.status === 'progress') {
          onProgress({ phase: 'model', file: p.file, loaded: p.loaded, total: p.total, progress: (p.progress ?? 0) / 100 });
        } else if (p.status === 'ready') {
          onProgress({ phase: 'model', progress: 1, message: `model ${model} ready` });
        }
      },
    })) as unknown as FeatureExtractor;
  } catch (cause) {
    throw new EmbedderError(
      `Could not load embedding model "${model}"${localModelPath ? ` from "${localModelPath}"` : ''}: ${(cause as Error)?.message ?? cause}`,
      { model, localModelPath, allowRemoteModels },
    );
  }

  const embedBatch = async (batch: string[]): Promise<Float32Array[]> => {
    const output = await extractor(batch, { pooling: 'mean', normalize: true });
    const dimension = output.dims[output.dims.length - 1]!;
    // Copy each row out: the tensor's buffer is reused/freed by the runtime.
    return batch.map((_, i) => output.data.slice(i * dimension, (i + 1) * dimension));
  };

  const [probe] = await embedBatch(['dimension probe']);
  const dimension = probe!.length;
  const id = `transformers.js/${model}/${dtype}`;

  return {
    id,
    dimension,
    async embed(texts: string[]) {
      try {
        return await embedInBatches(texts, batchSize, embedBatch);
      } catch (cause) {
        throw new EmbedderError(`Embedding with "${model}" failed: ${(cause as Error)?.message ?? cause}`, { model });
      }
    },
  };
}

/**
 * transformers.js 4.3 (web build) skips its "does this local file exist" check
 * for full http(s) URLs, so with `localModelPath: 'http://host/models/'` it
 * never loads the tokenizer. A same-origin URL is turned into its path
 * ('/models/'), which it handles.
 */
function sameOriginPath(path: string): string {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return origin && path.startsWith(`${origin}/`) ? path.slice(origin.length) : path;
}
