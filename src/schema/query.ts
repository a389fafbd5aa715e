import * as z from 'zod';
import { idSchema, memoryTypeSchema, tagSchema, timestampSchema, userIdSchema } from './common.js';
import { episodeStateSchema, outcomeStatusSchema } from './episode.js';
import { embeddingSchema, factCategorySchema } from './fact.js';

const scalar = z.union([z.string().max(1000), z.number().finite(), z.boolean(), z.null()]);

/**
 * Metadata filter: every key must match. A scalar matches by equality, an
 * array matches when the field equals any of its values (or, for array
 * fields, shares one). Keys name top-level `metadata` keys or known fields.
 */
export const metadataFilterSchema = z.record(z.string().min(1).max(100), z.union([scalar, z.array(scalar).max(100)]));
export type MetadataFilter = z.infer<typeof metadataFilterSchema>;

const timeRange = {
  /** Inclusive lower bound on `createdAt` (epoch ms or Date). */
  since: z.union([timestampSchema, z.date()]).optional(),
  /** Inclusive upper bound on `createdAt` (epoch ms or Date). */
  until: z.union([timestampSchema, z.date()]).optional(),
};

export const recallOptionsSchema = z
  .object({
    userId: userIdSchema.optional(),
    k: z.number().int().min(1).max(1000).optional(),
    types: z.array(memoryTypeSchema).min(1).optional(),
    /** Keep memories carrying at least one of these tags. */
    tags: z.array(tagSchema).max(50).optional(),
    ...timeRange,
    filter: metadataFilterSchema.optional(),
    /** Archived episodes are left out unless asked for. */
    includeArchived: z.boolean().optional(),
    /** Record the access (`lastAccessedAt`, which recency decays from). Default true; inspectors and benchmarks turn it off. */
    touch: z.boolean().optional(),
    /**
     * The query's pre-computed embedding, from the same model as the
     * embedder: used instead of embedding the query (no embedder call). The
     * query text still feeds the keyword signal. Normalised to unit length.
     */
    embedding: embeddingSchema.optional(),
  })
  .strict();
export type RecallOptions = z.input<typeof recallOptionsSchema>;

const listBase = {
  userId: userIdSchema.optional(),
  limit: z.number().int().min(1).max(100_000).optional(),
  offset: z.number().int().min(0).optional(),
  tags: z.array(tagSchema).max(50).optional(),
  ...timeRange,
  filter: metadataFilterSchema.optional(),
  /** By creation time; newest first by default. */
  order: z.enum(['asc', 'desc']).optional(),
};

export const episodeListQuerySchema = z
  .object({
    ...listBase,
    sessionId: idSchema.optional(),
    parentId: idSchema.nullable().optional(),
    participants: z.array(z.string().min(1)).max(50).optional(),
    toolsUsed: z.array(z.string().min(1)).max(50).optional(),
    entities: z.array(z.string().min(1)).max(50).optional(),
    outcomeStatus: z.array(outcomeStatusSchema).min(1).optional(),
    state: z.array(episodeStateSchema).min(1).optional(),
  })
  .strict();
export type EpisodeListQuery = z.input<typeof episodeListQuerySchema>;

export const factListQuerySchema = z
  .object({
    ...listBase,
    category: z.array(factCategorySchema).min(1).optional(),
    includeRetired: z.boolean().optional(),
  })
  .strict();
export type FactListQuery = z.input<typeof factListQuerySchema>;

export const exportOptionsSchema = z
  .object({
    userId: userIdSchema.optional(),
    /** Include embedding vectors (bigger file; import skips re-embedding when the embedder matches). Default true. */
    vectors: z.boolean().optional(),
  })
  .strict();
export type ExportOptions = z.input<typeof exportOptionsSchema>;

export function toEpochMs(value: number | Date | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? value.getTime() : value;
}
