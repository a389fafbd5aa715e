import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';

/**
 * - index (the SDK: page side, and Node in-process), server (the LLM proxy
 *   handler), ai and langchain (integrations with the Vercel AI SDK and
 *   LangChain.js, whose libraries are optional peers that stay external) and
 *   cli/engram (`npx engram`, the inspector for durable Node stores):
 *   ESM + CJS + .d.ts, dependencies left to the app's installer.
 * - engine.worker: the Web Worker entry, ESM only, built for the browser with
 *   every dependency bundled in (Dexie, Comlink, zod, transformers.js and
 *   onnxruntime-web's glue), so a dev server serves it as it is: no
 *   `optimizeDeps`, no CommonJS-to-ESM step. transformers.js sits in its own
 *   chunk, loaded only when the built-in embedder is used; onnxruntime-web's
 *   `.wasm` is copied beside it (it is referenced with
 *   `new URL('ort-wasm-simd-threaded.asyncify.wasm', import.meta.url)`, which
 *   Vite and webpack emit into the app). `@huggingface/transformers` is an
 *   optional peer dependency: browser apps get it from this bundle. It sits beside index.js because the
 *   SDK starts it with `new URL('./engine.worker.js', import.meta.url)`.
 */
/**
 * The SDK build leaves `import('./transformers.browser.js')`
 * (src/embed/import-transformers.ts) to the browser bundle built below: the
 * chunks of both builds sit side by side in dist/.
 */
const browserTransformersExternal: Plugin = {
  name: 'browser-transformers-external',
  setup(build) {
    build.onResolve({ filter: /^\.\/transformers\.browser\.js$/ }, () => ({ path: './transformers.browser.js', external: true }));
  },
};

export default defineConfig([
  {
    entry: {
      // The browser (and default) build, and the Node build (package.json's `node` condition), which adds the durable store.
      index: 'src/index.ts',
      'index.node': 'src/index.node.ts',
      server: 'src/server.ts',
      ai: 'src/ai/index.ts',
      langchain: 'src/langchain/index.ts',
      // engram/extension: serveMemory / connectMemory over chrome.runtime messaging.
      extension: 'src/extension/index.ts',
      // `npx engram` (package.json "bin").
      'cli/engram': 'src/cli/engram.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    splitting: true,
    treeshake: true,
    esbuildPlugins: [browserTransformersExternal],
  },
  {
    entry: { 'engine.worker': 'workers/engine.worker.ts', 'transformers.browser': 'src/embed/transformers.browser.ts' },
    format: ['esm'],
    platform: 'browser',
    noExternal: [/.*/],
    dts: true,
    sourcemap: true,
    target: 'es2022',
    splitting: true,
    treeshake: true,
    minify: true,
    publicDir: false,
    // Browser bundles: src/embed/import-transformers.ts drops its Node branch.
    define: { ENGRAM_BROWSER_BUNDLE: 'true' },
    // The .wasm, and onnxruntime-web's own bundle, which its glue names with
    // `new URL('ort.webgpu.bundle.min.mjs', import.meta.url)` for its (unused:
    // engram runs it single-threaded) thread workers: webpack fails the build
    // when that file is missing.
    onSuccess:
      'cp node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm node_modules/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs dist/',
  },
]);
