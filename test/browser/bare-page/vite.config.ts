import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The bare test page (see main.ts), built from the packaged SDK (dist/) as the demo is. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    alias: [
      { find: /^engram$/, replacement: fileURLToPath(new URL('../../../dist/index.js', import.meta.url)) },
      { find: /^engram\/transformers$/, replacement: fileURLToPath(new URL('../../../dist/transformers.js', import.meta.url)) },
    ],
  },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  worker: { format: 'es' },
  logLevel: 'warn',
});
