/// <reference lib="webworker" />
/**
 * The worker entry `createMemory()` starts by default (./serve-engine.ts):
 * the engine with engram's static-model reader, and no transformers.js.
 */
import { serveEngine } from './serve-engine.js';

serveEngine();
