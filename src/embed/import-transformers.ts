import { EmbedderError } from '../errors.js';

type Transformers = typeof import('@huggingface/transformers');

/**
 * Node loads the app's installed peer by a specifier no bundler follows:
 * webpack and esbuild fail a browser build on an import they cannot resolve,
 * and the optional peer is not installed in most browser apps.
 */
const NODE_PACKAGE = '@huggingface/transformers';

/**
 * `true` in engram's browser bundles (the worker, transformers.browser: see
 * tsup.config.ts's `define`), where the Node branch below is then dropped,
 * and with it the expression import that webpack would warn about.
 */
declare const ENGRAM_BROWSER_BUNDLE: boolean | undefined;

function isNode(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof process?.versions?.node === 'string' && typeof (globalThis as { document?: unknown }).document === 'undefined';
}

/**
 * transformers.js, loaded only when the built-in embedder is used:
 * - in Node, `@huggingface/transformers`, an optional peer dependency the app installs;
 * - in a browser (the engine's worker, or a page with `worker: false`),
 *   engram's own browser bundle of it (./transformers.browser.ts).
 * A failed import (not installed, a chunk that 404s) is an EmbedderError.
 */
export async function importTransformers(): Promise<Transformers> {
  const node = isNode();
  try {
    if (typeof ENGRAM_BROWSER_BUNDLE !== 'undefined' || !node) return await import('./transformers.browser.js');
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_PACKAGE)) as Transformers;
  } catch (cause) {
    const why = (cause as Error)?.message ?? String(cause);
    throw new EmbedderError(
      node
        ? `The built-in embedder needs @huggingface/transformers, which could not be loaded (${why}). Install it: \`npm install @huggingface/transformers\` (offline or in CI: \`ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers\`). Or pass your own \`embedder\`.`
        : `The built-in embedder could not load engram's transformers.js bundle (${why}). Check that your bundler emitted engram's transformers.browser chunk and that the server answers it, or pass your own \`embedder\`.`,
      { reason: 'transformers-missing' },
    );
  }
}
