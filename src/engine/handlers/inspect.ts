import type { INSPECT_OPERATIONS } from '../../operations/inspect.js';
import type { EmbedderStamp, EventRecord, JobRecord } from '../../schema/records.js';
import type { HandlersOf } from './handler.js';

export interface EngineInfo {
  name: string;
  embedder: EmbedderStamp;
  indexed: number;
  vectorBytes: number;
  openedFrom: 'snapshot' | 'records';
  replayed: number;
}

/** What the inspection operations read (operations/inspect.ts declares them). */
export const INSPECT_HANDLERS = {
  activity: async ({ ctx: { db } }, [options]): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> => ({
    jobs: await db.jobs.toArray(),
    events: await db.events.orderBy('seq').reverse().limit(options.limit).toArray(),
  }),
  info: async ({ ctx, openedFrom, replayed }): Promise<EngineInfo> => ({
    name: ctx.db.name,
    embedder: { id: ctx.embedder.id, dimension: ctx.embedder.dimension },
    indexed: ctx.index.size,
    vectorBytes: ctx.index.vectorBytes,
    openedFrom,
    replayed,
  }),
} satisfies HandlersOf<typeof INSPECT_OPERATIONS>;
