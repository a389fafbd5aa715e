import { EmbedderError } from '../errors.js';
import { embedInBatches } from './batch.js';
import { importTransformers } from './import-transformers.js';
import { lazyChunkError } from '../lazy-chunk.js';
import { DEFAULT_EMBEDDING_MODEL } from './default-model.js';
import type { Embedder, ProgressListener } from '../schema/embedder.js';
import { readModelConfig } from './model-config.js';
import { localModelSource, urlModelSource, type ModelSource } from './model-source.js';
import { defaultModelFiles } from '../default-model-files.js';

/**
 * Which model embeds, and where its files come from: `createMemory({ embedder })` or `loadTransformersEmbedder(options)`.
 */
export interface TransformersEmbedderOptions {
  /**
   * Hub model id, or a folder name under `localModelPath`. By default the
   * static model engram ships (`DEFAULT_EMBEDDING_MODEL`), read from the
   * package's own files: no network. Any other model without
   * `localModelPath` is fetched from the Hugging Face hub and runs on the
   * ONNX runtime (in a browser: `engram/transformers`).
   */
  model?: string;
  /** Folder (Node) or URL prefix (browser) holding `<org>/<model>/...` files. When set, remote models are off unless `allowRemoteModels` says otherwise. */
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
  /**
   * 'auto' (the default): a local static model (Model2Vec and the like: a
   * token table, no transformer layers) embeds with its tokenizer and its
   * table read directly, without starting the ONNX runtime; the vectors are
   * the pipeline's. Other models run on the ONNX runtime. 'onnx': always the
   * ONNX runtime.
   */
  runtime?: 'auto' | 'onnx';
}

export const DEFAULT_BATCH_SIZE = 32;

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

// transformers.js keeps its configuration in one module-level `env`, so model
// loads are serialised: each sets `env` for itself and nobody races it.
let loadQueue: Promise<unknown> = Promise.resolve();

/**
 * Loads an embedding model and measures its dimension by embedding a probe
 * sentence: a local static model (a token table, like the offline
 * potion-base-4M) from its files directly (./static/), any other model as a
 * transformers.js feature-extraction pipeline (mean pooling, normalised).
 * Both give the same vectors for a static model.
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
  const runtime = options.runtime ?? 'auto';
  // The model engram ships: its own files, wherever the bundler (or the package on disk) put them.
  const bundled = localModelPath === undefined && model === DEFAULT_EMBEDDING_MODEL && runtime === 'auto';
  const source: ModelSource | undefined = bundled ? shippedModel() : localModelPath !== undefined ? localModelSource(localModelPath, model) : undefined;

  // A loading screen can say what is loading from the first moment (the ready event below has progress 1).
  onProgress?.({ phase: 'model', progress: 0, message: `loading model ${model}` });
  // Read first, so a path that serves no model is a clear error (./model-config.ts); absent is fine only when the hub may still answer.
  const config = source ? await readModelConfig(source, bundled || !allowRemoteModels) : undefined;
  const staticModel = source && config && runtime === 'auto' ? await (await importStaticModel()).loadStaticModel(source, config, dtype) : undefined;
  let embedBatch: (batch: string[]) => Promise<Float32Array[]>;
  if (staticModel) {
    // A static model: its tokenizer and table, no transformers.js, no ONNX runtime.
    onProgress?.({ phase: 'model', progress: 1, message: `model ${model} ready (static table, ${staticModel.vocabularySize} tokens)` });
    embedBatch = staticModel.embedBatch;
  } else {
    if (bundled) throw new EmbedderError(`engram's bundled model "${model}" at ${source!.where} is not a static model it can read.`, { model });
    const extractor = await loadPipeline(model, dtype, localModelPath, allowRemoteModels, options.wasmPaths, onProgress);
    embedBatch = async (batch) => {
      const output = await extractor(batch, { pooling: 'mean', normalize: true });
      const dimension = output.dims[output.dims.length - 1]!;
      // Copy each row out: the tensor's buffer is reused/freed by the runtime.
      return batch.map((_, i) => output.data.slice(i * dimension, (i + 1) * dimension));
    };
  }

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

/** The ONNX runtime path: transformers.js's feature-extraction pipeline. */
async function loadPipeline(
  model: string,
  dtype: NonNullable<TransformersEmbedderOptions['dtype']>,
  localModelPath: string | undefined,
  allowRemoteModels: boolean,
  wasmPaths: string | undefined,
  onProgress: ProgressListener | undefined,
): Promise<FeatureExtractor> {
  const transformers = await importTransformers(model);
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
  if (wasm) wasm.wasmPaths = wasmPaths;

  try {
    return (await transformers.pipeline('feature-extraction', model, {
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
}

/**
 * The model engram ships, where the bundler emitted its files (or, in Node,
 * in the installed package). A bundler that emitted none of them (esbuild
 * copies no assets) leaves URLs relative to engram's script: the message
 * says what to copy.
 */
function shippedModel(): ModelSource {
  const files = defaultModelFiles();
  // Where its largest file is (a bundler may inline the small ones as data: URLs, which name no folder).
  const table = files['onnx/model_quantized.onnx']!.href;
  return urlModelSource(
    DEFAULT_EMBEDDING_MODEL,
    files,
    `engram's bundled model (${table})`,
    "the package's models/ folder, which bundlers that follow `new URL(..., import.meta.url)` (Vite, webpack, Turbopack) emit into the app; with another bundler, copy node_modules/engram/models/ to ../models/ from where engram's scripts are served (e.g. out/engram/ and out/models/), or pass `embedder: { localModelPath }`",
  );
}

/** The static-model reader, loaded only when a local model is given. */
function importStaticModel(): Promise<typeof import('./static/static-model.js')> {
  return import('./static/static-model.js').catch((cause: unknown) => {
    throw lazyChunkError("its static-model reader", cause, { embedder: true });
  });
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
