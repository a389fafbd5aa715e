import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The demo imports the BUILT package (dist/), exactly as an app would, so
 * Vite bundles the engine worker the SDK starts with
 * `new URL('./engine.worker.js', import.meta.url)`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { alias: { engram: fileURLToPath(new URL('../dist/index.js', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  worker: { format: 'es' },
  logLevel: 'warn',
});
