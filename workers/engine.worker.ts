/// <reference lib="webworker" />
/**
 * The worker entry: runs the Engine off the main thread and exposes it with
 * Comlink. The page's `createMemory()` starts this worker and talks to the
 * engine through it; the engine code is the same one Node runs in-process.
 */
import * as Comlink from 'comlink';
import { Engine } from '../src/engine.js';
import '../src/rpc/error-transfer.js';
import type { WorkerEntry } from '../src/rpc/worker-protocol.js';

const entry: WorkerEntry = {
  async open(config, customEmbedder, embed, onProgress, onEvent, llm) {
    const engine = await Engine.open(config, {
      embedder: customEmbedder && embed ? { ...customEmbedder, embed: (texts) => embed(texts) } : undefined,
      onProgress: onProgress ? (p) => void onProgress(p) : undefined,
      onEvent: onEvent ? (e) => void onEvent(e) : undefined,
      // A page-side function, called through Comlink. The request's AbortSignal cannot cross
      // the boundary, so it is dropped here; engram enforces its timeouts on this side.
      llm: llm ? ({ signal: _signal, ...request }) => llm({ ...request, signal: undefined as never }) : undefined,
    });
    return Comlink.proxy(engine);
  },
};

Comlink.expose(entry);
