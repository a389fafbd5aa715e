import CopyPlugin from 'copy-webpack-plugin';

// Nothing engram-specific: webpack 5 emits engram's worker (`new Worker(new URL(...))`) and the ONNX runtime's .wasm by itself.
export default {
  entry: './src/main.js',
  output: { path: new URL('./dist/', import.meta.url).pathname, clean: true },
  plugins: [new CopyPlugin({ patterns: [{ from: 'public' }] })],
};
