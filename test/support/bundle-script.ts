import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

/**
 * Bundles a test fixture (an extension's content script, service worker or
 * page script) against the packaged SDK (dist/), as an app's bundler would:
 * one classic script with engram's lazy chunks inlined (what content scripts
 * and classic service workers need), or, with `split`, an ES module whose
 * lazy chunks stay separate files loaded by import() (a code-splitting
 * build). esbuild, not Vite: Vite's library mode inlines the ONNX runtime's
 * .wasm as base64 (a 73 MB script that took 9 s to build and longer to load).
 */
export async function bundleScript(entry: string, outdir: string, name: string, options: { split?: boolean } = {}): Promise<void> {
  await build({
    entryPoints: { [name]: entry },
    bundle: true,
    outdir,
    format: options.split ? 'esm' : 'iife',
    splitting: options.split ?? false,
    alias: { 'engram/extension': dist('extension.js'), engram: dist('index.js') },
    logLevel: 'error',
  });
}
