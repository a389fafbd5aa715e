/// <reference lib="webworker" />
/**
 * What an engine worker does: runs the Engine off the main thread and
 * exposes it with Comlink. The page's `createMemory()` starts the worker and
 * talks to the engine through it; the engine code is the same one Node runs
 * in-process. A function the entries call (./engine.worker.ts,
 * ./engine.transformers.worker.ts), not a module run for its side effects:
 * the build tree-shakes by package.json's `"sideEffects": false`, which would
 * drop an import kept only for what it does when loaded.
 */
import * as Comlink from 'comlink';
import Dexie from 'dexie';
import { Engine } from '../src/engine.js';
import { installErrorTransfer } from '../src/rpc/error-transfer.js';
import { WORKER_PING_REPLY, type WorkerEntry } from '../src/rpc/worker-protocol.js';
import { providerFromDescriptor } from '../src/llm/from-descriptor.js';
import { providerOnPage } from '../src/rpc/page-provider.js';

export function serveEngine(): void {
  // Dexie turns its debug mode on by itself in pages served from localhost or 127.0.0.1: every table call then creates a
  // console task and runs its continuations inside it, and every rejection is also logged with console.trace, though the
  // engine turns it into an EngramError the app handles. This worker is engram's own, so engram behaves, logs and
  // performs the same whatever the host name (console.createTask costs worker CPU on every table call).
  Dexie.debug = false;
  installErrorTransfer();
  Comlink.expose(entry);
}

const entry: WorkerEntry = {
  ping: () => WORKER_PING_REPLY,
  async open(config, customEmbedder, embed, onProgress, onEvent, llmDescriptor, llmOnPage, timeParser, timeParse, timeAsksForContent) {
    const engine = await Engine.open(config, {
      embedder: customEmbedder && embed ? { ...customEmbedder, embed: (texts) => embed(texts) } : undefined,
      onProgress: onProgress ? (p) => void onProgress(p) : undefined,
      onEvent: onEvent ? (e) => void onEvent(e) : undefined,
      llm: llmDescriptor ? providerFromDescriptor(llmDescriptor) : llmOnPage ? providerOnPage(llmOnPage) : undefined,
      timeParser:
        timeParser && timeParse
          ? {
              language: timeParser.language,
              parse: (query, now, timeZone) => timeParse(query, now, timeZone),
              ...(timeParser.asksForContent && timeAsksForContent ? { asksForContent: (rest: string) => timeAsksForContent(rest) } : {}),
            }
          : undefined,
    });
    // The page calls every operation through the dispatcher (src/operations/); `close` is one of its methods.
    return Comlink.proxy(engine.dispatcher);
  },
};
