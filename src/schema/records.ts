import * as z from 'zod/mini';
import { idSchema, memoryTypeSchema, timestampSchema, userIdSchema } from './common.js';

/**
 * The stored record types of the engine's own tables (jobs, events, meta and
 * vector blocks). Memories, tasks and profiles have theirs beside their input
 * schemas (episode.ts, fact.ts, task.ts, profile.ts).
 */

const float32ArraySchema = z.custom<Float32Array>((v) => Object.prototype.toString.call(v) === '[object Float32Array]', 'must be a Float32Array');

/** What a stored vector embeds: a memory, or a completed task's description (for `tasks.relevant`). */
export const vectorKindSchema = z.union([memoryTypeSchema, z.literal('task')]);
export type VectorKind = z.infer<typeof vectorKindSchema>;

/** One memory's embedding, as the vector store hands it out (see store/vector-blocks.ts). */
export const storedVectorSchema = z.object({ id: idSchema, userId: userIdSchema, kind: vectorKindSchema, vector: float32ArraySchema });
export type StoredVector = z.infer<typeof storedVectorSchema>;

/**
 * A row of the `vectorBlocks` table: the vectors of up to a few hundred
 * memories of one user and kind, kept apart from the records so listing
 * never loads vectors (see store/vector-blocks.ts for why they are blocked).
 */
export const vectorBlockSchema = z.object({
  id: z.string().check(z.minLength(1)),
  userId: userIdSchema,
  kind: vectorKindSchema,
  /** The memories whose vectors the block holds, in row order. */
  ids: z.array(idSchema),
  /** `ids.length × dimension` floats, row after row. */
  vectors: float32ArraySchema,
});
export type VectorBlock = z.infer<typeof vectorBlockSchema>;

/** The pre-v4 row of the `vectors` table: one per memory (read only by the v4 migration). */
export type LegacyVectorRecord = StoredVector;

/** A durable unit of background work. Rows are deleted when the job finishes or is dropped. */
export const jobRecordSchema = z.object({
  id: z.string().check(z.minLength(1)),
  kind: z.string().check(z.minLength(1)),
  userId: userIdSchema,
  payload: z.unknown(),
  attempts: z.number().check(z.int(), z.gte(0)),
  /** Epoch ms before which the job must not run (backoff). */
  runAfter: timestampSchema,
  /** While an engine runs the job, it holds a lease until this time; an expired lease means the runner died. */
  leaseUntil: timestampSchema,
  createdAt: timestampSchema,
});
/**
 * A durable unit of background work (an episode write, a pattern extraction), as `memory.activity()` lists it.
 * @interface
 */
export type JobRecord = z.infer<typeof jobRecordSchema>;

/** An audit/telemetry event, kept for the inspector and for tests. */
export const eventRecordSchema = z.object({
  seq: z.optional(z.number().check(z.int())),
  type: z.string().check(z.minLength(1)),
  userId: z.nullable(userIdSchema),
  at: timestampSchema,
  data: z.record(z.string(), z.unknown()),
});
/**
 * An event kept for auditing, as `memory.activity()` lists it.
 * @interface
 */
export type EventRecord = z.infer<typeof eventRecordSchema>;

/** A key/value row of the `meta` table (embedder stamp, write mark, capture state). */
/**
 * A row of the `indexLog` table: which memories one mutation of a readwrite
 * transaction wrote (store/write-mark.ts), between the write marks before
 * and after that transaction. An open whose index snapshot lags the store
 * replays the memories of the transactions since the snapshot's mark
 * instead of reading every record (index-sync/index-snapshot.ts);
 * a save of the snapshot deletes the rows before its mark.
 */
export const indexLogRowSchema = z.object({
  seq: z.optional(z.number().check(z.int(), z.positive())),
  /** The store's write mark before the transaction, and after it. */
  previous: z.string(),
  mark: z.string().check(z.minLength(1)),
  /** The memories it wrote or deleted; null when they cannot be told (a range delete, a dropped vector block): no replay past it. */
  ids: z.nullable(z.array(idSchema)),
  /** The vector blocks it wrote (their keys): where the new vectors of those memories are. */
  blocks: z.optional(z.array(z.string())),
  /** The memory kind's table it wrote, so a replay reads each memory from its own table (absent for vector blocks, and in rows of older versions: then every table is read). */
  table: z.optional(z.string().check(z.minLength(1))),
});
export type IndexLogRow = z.infer<typeof indexLogRowSchema>;

export const metaRecordSchema = z.object({ key: z.string().check(z.minLength(1)), value: z.unknown() });
export type MetaRecord = z.infer<typeof metaRecordSchema>;

/** The embedder that produced the stored vectors; a different one triggers re-embedding. */
export const embedderStampSchema = z.object({ id: z.string().check(z.minLength(1)), dimension: z.number().check(z.int(), z.positive()) });
export type EmbedderStamp = z.infer<typeof embedderStampSchema>;
export const EMBEDDER_META_KEY = 'embedder';
