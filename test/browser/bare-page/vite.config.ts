import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The bare test page (see main.ts), built from the packaged SDK (dist/) as the demo is. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { alias: { engram: fileURLToPath(new URL('../../../dist/index.js', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  worker: { format: 'es' },
  logLevel: 'warn',
});
