/**
 * Serves the built example with the demo server (offline model, ONNX runtime files):
 *   npm run example:ai    → http://127.0.0.1:5174
 */
import { fileURLToPath } from 'node:url';
import { startDemoServer } from '../../demo/server.js';

const { url } = await startDemoServer({ pageDir: fileURLToPath(new URL('./dist/', import.meta.url)), port: Number(process.env.PORT ?? 5174), host: process.env.HOST ?? '127.0.0.1' });
console.log(`engram + AI SDK chat example: ${url} (recorded replies, no network). Press Ctrl+C to stop.`);
