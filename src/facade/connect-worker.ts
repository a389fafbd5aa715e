import * as Comlink from 'comlink';
import { isEmbedder } from '../schema/embedder.js';
import { ValidationError } from '../errors.js';
import { describeProvider } from '../llm/descriptor.js';
import type { MemoryOptions } from '../schema/memory-options.js';
import type { Emitter } from '../telemetry/emitter.js';
import type { EngramEvent } from '../telemetry/events.js';
import { pageProvider } from '../rpc/page-provider.js';
import { startEngineWorker } from '../rpc/start-worker.js';
import { engineConfigOf, type Connection } from './connection.js';

/**
 * Opens the engine in a Web Worker (the browser's default) and connects to
 * its dispatcher through Comlink. What cannot be cloned crosses as a Comlink
 * proxy: the app's embedder's `embed`, the progress and event listeners, and
 * a custom LLM provider, which runs here on the page (rpc/page-provider.ts),
 * and the app's time parser.
 */
export async function connectWorker(options: MemoryOptions, emitter: Emitter): Promise<Connection> {
  if (options.indexedDB || options.clock) {
    throw new ValidationError('createMemory: `indexedDB` and `clock` only work in-process; set `worker: false` to use them.', [
      { path: options.indexedDB ? 'indexedDB' : 'clock', message: 'not available with a worker' },
    ]);
  }
  const { worker, entry } = await startEngineWorker(options.worker || true, options.workerStartTimeoutMs);
  const customEmbedder = isEmbedder(options.embedder) ? options.embedder : undefined;
  // A custom provider runs here, on the page; the worker forwards its aborts (see rpc/page-provider.ts).
  const onPage = options.llm && !describeProvider(options.llm) ? pageProvider(options.llm) : null;
  const timeParser = options.timeParser;
  try {
    const engine = await entry.open(
      engineConfigOf(options),
      customEmbedder ? { id: customEmbedder.id, dimension: customEmbedder.dimension } : null,
      customEmbedder ? Comlink.proxy((texts: string[]) => customEmbedder.embed(texts)) : null,
      options.onProgress ? Comlink.proxy(options.onProgress) : null,
      Comlink.proxy((event: EngramEvent) => emitter.emit(event)),
      options.llm ? (describeProvider(options.llm) ?? null) : null,
      onPage ? Comlink.proxy(onPage) : null,
      // The app's time parser runs here, on the page: recall awaits it through the channel (time/query-parser.ts).
      timeParser ? { language: timeParser.language, asksForContent: timeParser.asksForContent !== undefined } : null,
      timeParser ? Comlink.proxy((query: string, now: number, timeZone: string) => timeParser.parse(query, now, timeZone)) : null,
      timeParser?.asksForContent ? Comlink.proxy((rest: string) => timeParser.asksForContent!(rest)) : null,
    );
    return {
      engine,
      async shutdown(closeOptions) {
        try {
          await engine.close(closeOptions);
        } finally {
          // Whatever the worker did not get to abort before it went away stops here.
          onPage?.abortAll('engram is closing');
          worker.terminate();
        }
      },
    };
  } catch (error) {
    worker.terminate();
    throw error;
  }
}
