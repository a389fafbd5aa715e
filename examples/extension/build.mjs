// Builds the unpacked extension into dist/ (load it at chrome://extensions, "Load unpacked").
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync } from 'node:fs';

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
// The offline model ships inside the extension; `npm run models` (or your build) copies it into models/.
cpSync('models', 'dist/models', { recursive: true });
