import { isEmbedder } from '../schema/embedder.js';
import { ValidationError } from '../errors.js';
import { lazyChunkError } from '../lazy-chunk.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import type { MemoryOptions } from '../schema/memory-options.js';
import type { DurableStore } from '../store/durable/durable-store.js';
import type { Emitter } from '../telemetry/emitter.js';
import { engineConfigOf, type Connection } from './connection.js';

/**
 * Opens the engine in this thread (Node, a service worker, `worker: false`):
 * on the durable store when one was opened, else on the given or global
 * IndexedDB.
 */
export async function connectInProcess(options: MemoryOptions, durable: DurableStore | undefined, emitter: Emitter): Promise<Connection> {
  const indexedDB = durable?.indexedDB ?? options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (!indexedDB) {
    throw new ValidationError(
      'createMemory: no IndexedDB here. In Node, pass one: `import { indexedDB, IDBKeyRange } from "fake-indexeddb"` and `createMemory({ name, indexedDB, IDBKeyRange })`.',
      [{ path: 'indexedDB', message: 'required outside the browser' }],
    );
  }
  // Loaded only here, so a page in worker mode carries the facade, not the engine.
  const { Engine } = await import('../engine.js').catch((cause: unknown) => {
    throw lazyChunkError('its in-process engine', cause);
  });
  const engine = await Engine.open(engineConfigOf(options), {
    indexedDB,
    // Dexie needs both; in a page running in-process, the browser's own key range goes with its own factory.
    IDBKeyRange: durable?.IDBKeyRange ?? options.IDBKeyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange,
    embedder: isEmbedder(options.embedder) ? options.embedder : undefined,
    onProgress: options.onProgress,
    onEvent: (event) => emitter.emit(event),
    clock: options.clock,
    llm: options.llm,
    timeParser: options.timeParser,
    pageFiles: durable?.pageFiles,
  }).catch(async (error: unknown) => {
    await durable?.close();
    throw error;
  });
  return {
    // The dispatcher's methods answer with promises already: the facade calls it as it would the worker's (rpc/engine-remote.ts).
    engine: engine.dispatcher as unknown as EngineRemote,
    async shutdown(closeOptions) {
      await engine.close(closeOptions);
      await durable?.close();
    },
  };
}
