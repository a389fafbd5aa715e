import type { MemoryOptions } from '../schema/memory-options.js';
import type { Emitter } from '../telemetry/emitter.js';
import { connectInProcess } from './connect-in-process.js';
import { connectWorker } from './connect-worker.js';
import { useWorker, type Connection } from './connection.js';
import type { DurableOpener } from './durable-opener.js';

/**
 * Connects a new memory to its engine: in a Web Worker (the browser's
 * default) or in this thread (Node, `worker: false`). A store on disk
 * (`directory`) is opened first: the build's opener decides whether this
 * mode can have one.
 */
export async function connect(options: MemoryOptions, openDurable: DurableOpener, emitter: Emitter): Promise<Connection> {
  const inProcess = !useWorker(options.worker);
  const durable = await openDurable({ ...options, inProcess });
  return inProcess ? connectInProcess(options, durable, emitter) : connectWorker(options, emitter);
}
