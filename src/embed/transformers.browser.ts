/**
 * transformers.js for the browser, as engram ships it: the build bundles this
 * entry (with onnxruntime-web's glue) into dist/transformers.browser.js, so a
 * browser app installs nothing more and its bundler emits the file, and the
 * `.wasm` it names with `new URL(..., import.meta.url)`, as a lazy chunk.
 * See ./import-transformers.ts for who loads it.
 */
export * from '@huggingface/transformers';
