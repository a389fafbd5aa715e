import { ContextError, EmbedderError, type EngramError } from './errors.js';

/** True in a service worker (an extension's background, a PWA's), where `import()` is not allowed. */
export function inServiceWorker(): boolean {
  const scope = globalThis as { ServiceWorkerGlobalScope?: abstract new () => unknown };
  return typeof scope.ServiceWorkerGlobalScope === 'function' && globalThis instanceof scope.ServiceWorkerGlobalScope;
}

/**
 * engram loads parts of itself lazily with `import()` (the in-process engine,
 * the static-model reader). When that fails, the caller gets a typed error
 * that says why and what to do, never the platform's bare TypeError.
 * `what` names the part; `embedder` says an EmbedderError fits better.
 */
export function lazyChunkError(what: string, cause: unknown, options: { embedder?: boolean } = {}): EngramError {
  const why = (cause as Error)?.message ?? String(cause);
  if (inServiceWorker()) {
    return new ContextError(
      `engram could not load ${what} (${why}): a service worker may not use import(). Bundle engram into your service worker as one file (no code splitting: e.g. Vite/Rollup \`inlineDynamicImports: true\`, esbuild without \`--splitting\`), or run engram in a page, an extension page or an offscreen document.`,
      { context: 'service-worker' },
    );
  }
  const message = `engram could not load ${what} (${why}). Check that your bundler emitted engram's chunks next to the file that imports them and that the server answers them.`;
  return options.embedder ? new EmbedderError(message, { reason: 'chunk-missing' }) : new ContextError(message, { context: 'chunk-load' });
}
