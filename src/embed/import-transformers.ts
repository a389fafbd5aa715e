import { EmbedderError } from '../errors.js';

type Transformers = typeof import('@huggingface/transformers');

/**
 * Node loads the app's installed peer by a specifier no bundler follows:
 * webpack and esbuild fail a browser build on an import they cannot resolve,
 * and the optional peer is not installed in most browser apps.
 */
const NODE_PACKAGE = '@huggingface/transformers';

/**
 * `true` in engram's browser bundles (the workers, transformers.browser: see
 * tsup.config.ts's `define`), where the Node branch below is then dropped,
 * and with it the expression import that webpack would warn about.
 */
declare const ENGRAM_BROWSER_BUNDLE: boolean | undefined;

function isNode(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof process?.versions?.node === 'string' && typeof (globalThis as { document?: unknown }).document === 'undefined';
}

/**
 * In a browser, engram's build of transformers.js (with onnxruntime-web and
 * its large `.wasm`) is reached only through `engram/transformers`, which
 * hands its loader in here: no module of `engram` or of its default worker
 * names that chunk, so a bundler emits it (and the `.wasm`) only into apps
 * that import `engram/transformers`.
 */
let browserTransformers: (() => Promise<Transformers>) | undefined;

/** Called by `engram/transformers` (src/transformers.ts, workers/engine.transformers.worker.ts). */
export function provideTransformers(load: () => Promise<Transformers>): void {
  browserTransformers ??= load;
}

/**
 * transformers.js, loaded only when a model needs the ONNX runtime:
 * - in Node, `@huggingface/transformers`, an optional peer dependency the app installs;
 * - in a browser, engram's own bundle of it, when the app asked for it with `engram/transformers`.
 * A failed import (not installed, not asked for, a chunk that 404s) is an EmbedderError.
 */
export async function importTransformers(model: string): Promise<Transformers> {
  const node = typeof ENGRAM_BROWSER_BUNDLE === 'undefined' && isNode();
  if (!node && !browserTransformers) {
    throw new EmbedderError(
      `The model "${model}" runs on the ONNX runtime (transformers.js), which engram leaves out of a browser app unless it asks for it (its .wasm alone is 26.9 MB). ` +
        "Ask for it: `import { transformersWorker } from 'engram/transformers'` and `createMemory({ ..., worker: transformersWorker })`; in-process (`worker: false`, a service worker), `import { loadTransformersEmbedder } from 'engram/transformers'` and pass `embedder: await loadTransformersEmbedder({ model })`. " +
        "Or leave `embedder` out: engram's bundled static model needs neither.",
      { reason: 'transformers-not-bundled', model },
    );
  }
  try {
    if (!node) return await browserTransformers!();
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_PACKAGE)) as Transformers;
  } catch (cause) {
    const why = (cause as Error)?.message ?? String(cause);
    throw new EmbedderError(
      node
        ? `The model "${model}" runs on the ONNX runtime and needs @huggingface/transformers, which could not be loaded (${why}). Install it: \`npm install @huggingface/transformers\` (offline or in CI: \`ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers\`). Or leave \`embedder\` out: engram's bundled static model needs neither.`
        : `The model "${model}" runs on the ONNX runtime, and engram's transformers.js bundle could not be loaded (${why}). Check that your bundler emitted engram's transformers.browser chunk and that the server answers it, or pass your own \`embedder\`.`,
      { reason: 'transformers-missing', model },
    );
  }
}
