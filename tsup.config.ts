import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

/**
 * - index (the SDK: page side, and Node in-process), server (the LLM proxy
 *   handler), ai and langchain (integrations with the Vercel AI SDK and
 *   LangChain.js, whose libraries are optional peers that stay external) and
 *   cli/engram (`npx engram`, the inspector for durable Node stores):
 *   ESM + CJS + .d.ts, dependencies left to the app's installer.
 * - engine.worker: the Web Worker entry, ESM only, built for the browser with
 *   every dependency bundled in (Dexie, Comlink, zod, the static-model
 *   reader), so a dev server serves it as it is: no `optimizeDeps`, no
 *   CommonJS-to-ESM step. It sits beside index.js because the SDK starts it
 *   with `new URL('./engine.worker.js', import.meta.url)`. It never names
 *   transformers.js: engram's default model is a static one.
 * - engine.transformers.worker and transformers.browser: the same worker plus
 *   transformers.js and onnxruntime-web's glue (in its own chunk), reached
 *   only from `engram/transformers` (src/transformers.ts), so a bundler emits
 *   them, and onnxruntime-web's `.wasm` (copied beside them, referenced with
 *   `new URL('ort-wasm-simd-threaded.asyncify.wasm', import.meta.url)`), only
 *   into apps that import that subpath. `@huggingface/transformers` is an
 *   optional peer dependency: browser apps get it from this bundle.
 * - The default model's files are not copied: they stay in the package's
 *   models/, which src/default-model-files.ts names relative to dist/.
 * - No source maps: they would double the package (8 MB) for a library
 *   whose dist is readable ESM, and a map that is listed but not shipped
 *   makes dev servers warn.
 */
/**
 * The SDK build and the transformers worker leave
 * `import('./embed/transformers.browser.js')` (src/transformers.ts,
 * workers/engine.transformers.worker.ts) to the bundle of it built below:
 * the files of every build sit side by side in dist/.
 */
const browserTransformersExternal: Plugin = {
  name: 'browser-transformers-external',
  setup(build) {
    build.onResolve({ filter: /(^|\/)transformers\.browser\.js$/ }, () => ({ path: './transformers.browser.js', external: true }));
  },
};

/** The browser bundles: ESM, every dependency inside, minified. */
const browserBundle: Options = {
  format: ['esm'],
  platform: 'browser',
  noExternal: [/.*/],
  // A worker script exports nothing: its declarations would be empty, and building them ran the compiler again.
  dts: false,
  sourcemap: false,
  target: 'es2022',
  splitting: true,
  treeshake: true,
  minify: true,
  publicDir: false,
  // Browser bundles: src/embed/import-transformers.ts drops its Node branch.
  define: { ENGRAM_BROWSER_BUNDLE: 'true' },
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
      // engram/transformers: a transformer model on the ONNX runtime, for apps that ask for one.
      transformers: 'src/transformers.ts',
      // `npx engram` (package.json "bin").
      'cli/engram': 'src/cli/engram.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: false,
    clean: true,
    target: 'es2022',
    splitting: true,
    treeshake: true,
    esbuildPlugins: [browserTransformersExternal],
  },
  // Each worker is its own build (and so is transformers.browser, which the transformers worker and
  // engram/transformers import by name): when esbuild splits entries that share code, it may move an
  // entry's whole body into a chunk that the entry imports for its side effects only, and bundlers drop
  // such imports from a package marked `"sideEffects": false`, emitting an empty worker.
  { ...browserBundle, entry: { 'engine.worker': 'workers/engine.worker.ts' } },
  { ...browserBundle, entry: { 'engine.transformers.worker': 'workers/engine.transformers.worker.ts' }, esbuildPlugins: [browserTransformersExternal] },
  {
    ...browserBundle,
    entry: { 'transformers.browser': 'src/embed/transformers.browser.ts' },
    // The .wasm, and onnxruntime-web's own bundle, which its glue names with
    // `new URL('ort.webgpu.bundle.min.mjs', import.meta.url)` for its (unused:
    // engram runs it single-threaded) thread workers: webpack fails the build
    // when that file is missing.
    onSuccess:
      'cp node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm node_modules/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs dist/',
  },
]);
