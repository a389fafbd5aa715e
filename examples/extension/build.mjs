// Builds the unpacked extension into dist/ (load it at chrome://extensions, "Load unpacked").
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';

if (!existsSync('node_modules/engram/models')) {
  console.error('engram is not installed: pack it first at the repository root ((cd ../.. && npm pack) makes ../../engram-0.1.0.tgz), then npm install here.');
  process.exit(1);
}
rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
await build({
  entryPoints: { background: 'src/background.js', popup: 'src/popup.js', content: 'src/content.js' },
  bundle: true,
  // One file per context and no code splitting: an extension service worker may not import() a chunk.
  format: 'iife',
  minify: true,
  outdir: 'dist',
  logLevel: 'warning',
});
cpSync('src/manifest.json', 'dist/manifest.json');
cpSync('src/popup.html', 'dist/popup.html');
// engram's bundled model ships inside the extension: an iife bundle has no import.meta.url, so engram
// looks for it under /models/ of the extension's origin (see engram's src/default-model-files.ts).
cpSync('node_modules/engram/models', 'dist/models', { recursive: true, filter: (path) => !path.endsWith('README.md') });
