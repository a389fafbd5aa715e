/// <reference lib="webworker" />
/**
 * The engine worker of `engram/transformers` (src/transformers.ts): the
 * default worker's engine (./serve-engine.ts) plus engram's browser build of
 * transformers.js, loaded when a model needs the ONNX runtime. A separate
 * entry so that only apps that start this worker bundle that chunk and
 * onnxruntime-web's `.wasm`.
 */
import { provideTransformers } from '../src/embed/import-transformers.js';
import { serveEngine } from './serve-engine.js';

provideTransformers(() => import('../src/embed/transformers.browser.js'));
serveEngine();
