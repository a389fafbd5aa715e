import * as z from 'zod/mini';
import { isEmbedder } from '../schema/embedder.js';
import type { EngineConfig } from '../engine/parts.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import type { MemoryOptions } from '../schema/memory-options.js';
import { lazySchema } from '../schema/lazy-schema.js';

/** What a connector gives the `Memory` facade: the engine's dispatcher, and how to shut it down. */
export interface Connection {
  engine: EngineRemote;
  /** Closes the engine, then whatever the connector opened for it (a worker, a store on disk). */
  shutdown(options: { timeoutMs?: number }): Promise<void>;
}

/** `memory.close()`'s options: how long in-flight work may take before the database closes anyway. */
export const closeOptionsSchema = lazySchema(() => z.strictObject({ timeoutMs: z.optional(z.number().check(z.int(), z.gte(0), z.lte(600_000))) }));

/** The engine's plain-data configuration from createMemory's options: the same in-process or in a worker. */
export function engineConfigOf(options: MemoryOptions): EngineConfig {
  return {
    name: options.name,
    lifecycle: options.lifecycle,
    ranking: options.ranking,
    indexSnapshot: options.indexSnapshot,
    timeZone: options.timeZone,
    extraction: options.extraction,
    facts: options.facts,
    capture: options.capture,
    tasks: options.tasks,
    turns: options.turns,
    embedder: isEmbedder(options.embedder) ? undefined : options.embedder,
  };
}

/** Whether the engine runs in a worker: as asked, else wherever a page can start one. */
export function useWorker(option: MemoryOptions['worker']): boolean {
  if (option === undefined) return typeof window !== 'undefined' && typeof Worker !== 'undefined';
  return option !== false;
}
