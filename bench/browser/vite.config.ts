import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The benchmark page. Like the demo, it imports the BUILT package (dist/), so
 * engram runs exactly as an app gets it, worker included. entity-db's
 * transformers.js import is pointed at a module that refuses to load a model:
 * the benchmark hands it vectors, and importing it must not start a download.
 */
export default defineConfig({
  root: here('.'),
  resolve: {
    alias: {
      engram: here('../../dist/index.js'),
      '@xenova/transformers': here('./peers/no-model-transformers.ts'),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4000 },
  worker: { format: 'es' },
  logLevel: 'warn',
});
