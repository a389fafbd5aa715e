/// <reference lib="webworker" />
/**
 * The worker entry: runs the Engine off the main thread and exposes it with
 * Comlink. The page's `createMemory()` starts this worker and talks to the
 * engine through it; the engine code is the same one Node runs in-process.
 */
import * as Comlink from 'comlink';
import { Engine } from '../src/engine.js';
import { installErrorTransfer } from '../src/rpc/error-transfer.js';
import { WORKER_PING_REPLY, type WorkerEntry } from '../src/rpc/worker-protocol.js';
import { providerFromDescriptor } from '../src/llm/from-descriptor.js';
import { providerOnPage } from '../src/rpc/page-provider.js';

const entry: WorkerEntry = {
  ping: () => WORKER_PING_REPLY,
  async open(config, customEmbedder, embed, onProgress, onEvent, llmDescriptor, llmOnPage) {
    const engine = await Engine.open(config, {
      embedder: customEmbedder && embed ? { ...customEmbedder, embed: (texts) => embed(texts) } : undefined,
      onProgress: onProgress ? (p) => void onProgress(p) : undefined,
      onEvent: onEvent ? (e) => void onEvent(e) : undefined,
      llm: llmDescriptor ? providerFromDescriptor(llmDescriptor) : llmOnPage ? providerOnPage(llmOnPage) : undefined,
    });
    return Comlink.proxy(engine);
  },
};

installErrorTransfer();
Comlink.expose(entry);
