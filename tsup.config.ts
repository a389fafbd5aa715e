import { defineConfig } from 'tsup';

/**
 * Six entries, ESM + CJS + .d.ts each:
 * - index: the SDK (page side, and Node in-process);
 * - engine.worker: the Web Worker entry. It sits beside index.js because the
 *   SDK starts it with `new URL('./engine.worker.js', import.meta.url)`;
 * - server: server-side helpers (the LLM proxy handler);
 * - ai, langchain: integrations with the Vercel AI SDK and LangChain.js.
 *   Their libraries are optional peer dependencies, so tsup leaves them
 *   external: an app that never imports these subpaths never loads them.
 * - cli/engram: `npx engram`, which inspects a durable Node store.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'engine.worker': 'workers/engine.worker.ts',
    server: 'src/server.ts',
    ai: 'src/ai/index.ts',
    langchain: 'src/langchain/index.ts',
    // `npx engram`: the inspector for durable Node stores (package.json "bin").
    'cli/engram': 'src/cli/engram.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  splitting: true,
  treeshake: true,
});
