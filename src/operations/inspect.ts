/** The inspection operations: what runs in the background, what was recorded, and the engine's own figures. */
import * as z from 'zod/mini';
import type { EmbedderStamp, EventRecord, JobRecord } from '../schema/records.js';
import { defineOperation, param } from './operation.js';

export interface EngineInfo {
  name: string;
  embedder: EmbedderStamp;
  indexed: number;
  vectorBytes: number;
  openedFrom: 'snapshot' | 'records';
  replayed: number;
}

/** Background work waiting or running, and the recorded events (newest first). */
export const readActivity = defineOperation({
  method: 'activity',
  name: 'read activity',
  input: [param(z.strictObject({ limit: z._default(z.number().check(z.int(), z.gte(1), z.lte(10_000)), 100) }))],
  handler: async ({ ctx: { db } }, [options]): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> => ({
    jobs: await db.jobs.toArray(),
    events: await db.events.orderBy('seq').reverse().limit(options.limit).toArray(),
  }),
});

/** Embedder identity, index size and memory, and how this open loaded the index. Untracked: it only reads counters. */
export const readInfo = defineOperation({
  method: 'info',
  name: 'read info',
  input: [],
  runs: 'untracked',
  handler: async ({ ctx, openedFrom, replayed }): Promise<EngineInfo> => ({
    name: ctx.db.name,
    embedder: { id: ctx.embedder.id, dimension: ctx.embedder.dimension },
    indexed: ctx.index.size,
    vectorBytes: ctx.index.vectorBytes,
    openedFrom,
    replayed,
  }),
});

export const INSPECT_OPERATIONS = [readActivity, readInfo] as const;
