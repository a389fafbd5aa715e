import {
  assembleParts,
  buildContext,
  buildWork,
  closeStore,
  eventSink,
  loadEmbedder,
  loadIndexes,
  openStore,
  startAnnouncing,
} from './engine/build-parts.js';
import type { EngineConfig, EngineHooks, EngineParts } from './engine/parts.js';
import { dispatchOperations, type EngineDispatcher } from './engine/dispatch.js';
import { deadline } from './timers.js';
import { EngramError, QuotaError } from './errors.js';
import { isQuotaExceeded } from './store/transaction-errors.js';

export type { EngineConfig, EngineHooks } from './engine/parts.js';

/** What `close()` gives in-flight calls when the app names no deadline. */
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/**
 * The engine: one per open database, the only writer. `Engine.open` is the
 * composition root: it builds the parts in dependency order. Every public
 * operation is defined once in src/operations/; the engine's `dispatcher`
 * runs them, and is what the `Memory` facade calls, directly (in-process) or
 * through Comlink (a worker). Every write crosses store/commit.ts.
 */
export class Engine {
  private closed = false;
  /** Every operation by its public method, plus `abortCall` and `close`: the object a worker exposes. */
  readonly dispatcher: EngineDispatcher;

  private constructor(private readonly parts: EngineParts) {
    this.dispatcher = {
      ...dispatchOperations(parts),
      abortCall: (callId, reason) => parts.aborts.abort(callId, reason),
      close: (options) => this.close(options),
    };
  }

  static async open(config: EngineConfig, hooks: EngineHooks = {}): Promise<Engine> {
    try {
      return await Engine.openStoreAndParts(config, hooks);
    } catch (error) {
      // Opening writes too (the store's layout, its stamps and marks): on a full origin the first of them is refused.
      if (!(error instanceof EngramError) && isQuotaExceeded(error)) {
        throw new QuotaError(
          `Storage quota exceeded while opening "${config.name}": the origin's storage is full. Free space (this origin's other data, or ask for persistent storage with navigator.storage.persist()) and open it again.`,
          { operation: `open "${config.name}"` },
        );
      }
      throw error;
    }
  }

  private static async openStoreAndParts(config: EngineConfig, hooks: EngineHooks): Promise<Engine> {
    const store = await openStore(config, hooks);
    try {
      const emit = eventSink(hooks);
      const ctx = buildContext(config, hooks, store.db, await loadEmbedder(config, hooks), emit);
      const work = buildWork(config, hooks, ctx);
      const indexes = await loadIndexes(config, hooks, ctx, work, store.storedSnapshot);
      startAnnouncing(ctx, store.signal, indexes.taskIndex, emit);
      const engine = new Engine(assembleParts(config, hooks, ctx, work, indexes, store.signal));
      // Resume background jobs a previous session left queued.
      await work.queue.resume();
      return engine;
    } catch (error) {
      closeStore(store);
      throw error;
    }
  }

  /** Stops taking work, lets in-flight calls finish (up to `timeoutMs`), then closes the database. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { ctx, calls, queue, snapshots, signal, closing, access } = this.parts;
    calls.stop();
    // Pending access times are written now, one transaction per kind (the write is tracked: the wait for calls below includes it).
    void access.settleForClose();
    const timeoutMs = options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    // In-flight jobs are cancelled (they stay queued, and emit no event); calls get until the deadline.
    closing.abort(new Error('engram is closing'));
    this.parts.stopWarmups();
    await queue.close(timeoutMs);
    const limit = deadline(timeoutMs);
    try {
      await Promise.race([calls.settled(), limit.reached]);
      // The index snapshot makes the next open fast; past the deadline, closing the database abandons it (a cache).
      if (snapshots) await Promise.race([snapshots.flush(), limit.reached]);
      await Promise.race([snapshots?.stop(), limit.reached]);
    } finally {
      limit.cancel();
    }
    closeStore({ db: ctx.db, signal });
    await ctx.embedder.dispose?.();
  }
}

export type { RecallHit, MemoryRecord } from './recall/recall.js';
export type { ImportSummary } from './portability/import.js';
