import type { MemoryType } from '../schema/common.js';

/** One memory's embedding, as the vector store hands it out (see vector-blocks.ts). */
export interface StoredVector {
  id: string;
  userId: string;
  /** 'task' vectors embed completed task descriptions, for `tasks.relevant`. */
  kind: MemoryType | 'task';
  vector: Float32Array;
}

/**
 * A row of the `vectorBlocks` table: the vectors of up to a few hundred
 * memories of one user and kind, kept apart from the records so listing
 * never loads vectors (see vector-blocks.ts for why they are blocked).
 */
export interface VectorBlock {
  id: string;
  userId: string;
  kind: MemoryType | 'task';
  /** The memories whose vectors the block holds, in row order. */
  ids: string[];
  /** `ids.length × dimension` floats, row after row. */
  vectors: Float32Array;
}

/** The pre-v4 row of the `vectors` table: one per memory (read only by the v4 migration). */
export interface LegacyVectorRecord {
  id: string;
  userId: string;
  kind: MemoryType | 'task';
  vector: Float32Array;
}

/** A durable unit of background work. Rows are deleted when the job finishes or is dropped. */
export interface JobRecord {
  id: string;
  kind: string;
  userId: string;
  payload: unknown;
  attempts: number;
  /** Epoch ms before which the job must not run (backoff). */
  runAfter: number;
  /** While an engine runs the job, it holds a lease until this time; an expired lease means the runner died. */
  leaseUntil: number;
  createdAt: number;
}

/** An audit/telemetry event, kept for the inspector and for tests. */
export interface EventRecord {
  seq?: number;
  type: string;
  userId: string | null;
  at: number;
  data: Record<string, unknown>;
}

export interface ProfileRecord {
  userId: string;
  fields: Record<string, unknown>;
  updatedAt: number;
}

export interface MetaRecord {
  key: string;
  value: unknown;
}

/** The embedder that produced the stored vectors; a different one triggers re-embedding. */
export interface EmbedderStamp {
  id: string;
  dimension: number;
}
export const EMBEDDER_META_KEY = 'embedder';
