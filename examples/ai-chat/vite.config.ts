import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

/** Like the demo, the example imports the BUILT package (dist/), as an app would. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { alias: [{ find: /^engram\/ai$/, replacement: dist('ai.js') }, { find: /^engram$/, replacement: dist('index.js') }] },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  worker: { format: 'es' },
  logLevel: 'warn',
});
