import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * Offline PWA: emits sw.js (from demo/service-worker.js) with the build's
 * file list and a version derived from it, and the web app manifest. Left
 * out of the precache: source maps, transformers.js's chunk and the ONNX
 * runtime's `.wasm` (the offline model is a static one: it never loads them).
 */
function serviceWorker(): Plugin {
  return {
    name: 'engram-demo-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle)
        .filter((name) => !/\.map$|\.wasm$|transformers\.browser/.test(name))
        .sort();
      const precache = ['/', ...files.filter((name) => name !== 'index.html').map((name) => `/${name}`), '/manifest.webmanifest', '/icon.svg'];
      const version = createHash('sha256').update(JSON.stringify(precache)).digest('hex').slice(0, 12);
      const template = readFileSync(fileURLToPath(new URL('./service-worker.js', import.meta.url)), 'utf8');
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: template.replace("'__VERSION__'", JSON.stringify(version)).replace('__PRECACHE__', JSON.stringify(precache)) });
      this.emitFile({
        type: 'asset',
        fileName: 'manifest.webmanifest',
        source: JSON.stringify(
          {
            name: 'engram demo: on-device memory',
            short_name: 'engram',
            start_url: '/',
            display: 'standalone',
            background_color: '#ffffff',
            theme_color: '#1f2937',
            icons: [{ src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
          },
          null,
          2,
        ),
      });
      this.emitFile({
        type: 'asset',
        fileName: 'icon.svg',
        source: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#1f2937"/><text x="256" y="330" font-size="260" text-anchor="middle" fill="#fff" font-family="sans-serif">e</text></svg>',
      });
    },
  };
}

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
  plugins: [serviceWorker()],
  logLevel: 'warn',
});
