/**
 * The files of engram's default embedding model (models/ at the package's
 * root, ../models/README.md), each named with `new URL(literal,
 * import.meta.url)`: the form Vite, webpack and Turbopack recognise and emit
 * into the app (under their own, hashed names, hence one URL per file rather
 * than a folder), and that Node resolves to a file in the installed package.
 * This module sits directly in src/ so that one relative path, `../models/`,
 * holds both here and in dist/, where the build lays every chunk flat.
 *
 * A bundler that does not emit such files (esbuild) leaves the URLs relative
 * to the script: copying the package's models/ folder to ../models/ from the
 * copied dist/ (out/engram/ and out/models/) serves them. A classic-script
 * bundle (esbuild's `iife`, as an extension's service worker is built) has
 * no `import.meta.url`: the files are then looked for under `../models/`
 * from the running script (or page), which is `/models/` for a script at
 * the root of its origin, such as an extension's background script.
 */
export function defaultModelFiles(): Record<string, URL> {
  if (typeof import.meta.url !== 'string') {
    const base = (globalThis as { location?: { href: string } }).location?.href;
    return Object.fromEntries(FILES.map((file) => [file, new URL(`../models/minishlab/potion-base-4M-int8/${file}`, base)]));
  }
  return {
    'config.json': new URL('../models/minishlab/potion-base-4M-int8/config.json', import.meta.url),
    'tokenizer.json': new URL('../models/minishlab/potion-base-4M-int8/tokenizer.json', import.meta.url),
    'tokenizer_config.json': new URL('../models/minishlab/potion-base-4M-int8/tokenizer_config.json', import.meta.url),
    'onnx/model_quantized.onnx': new URL('../models/minishlab/potion-base-4M-int8/onnx/model_quantized.onnx', import.meta.url),
  };
}

const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];
