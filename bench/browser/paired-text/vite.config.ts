import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The paired recall(text) page, on the BUILT package (dist/) as an app gets it. */
export default defineConfig({
  root: here('.'),
  resolve: { alias: { engram: here('../../../dist/index.js') } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4000 },
  worker: { format: 'es' },
  logLevel: 'warn',
});
