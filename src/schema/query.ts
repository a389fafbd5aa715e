import * as z from 'zod/mini';
import { idSchema, memoryTypeSchema, tagSchema, timestampSchema, userIdSchema } from './common.js';
import { episodeStateSchema, outcomeStatusSchema } from './episode.js';
import { timeZoneSchema } from './time-zone.js';
import { embeddingSchema, factCategorySchema } from './fact.js';
import { lazySchema } from './lazy-schema.js';

const scalar = () => z.union([z.string().check(z.maxLength(1000)), z.number(), z.boolean(), z.null()]);

/**
 * Metadata filter: every key must match. A scalar matches by equality, an
 * array matches when the field equals any of its values (or, for array
 * fields, shares one). Keys name top-level `metadata` keys or known fields.
 */
export const metadataFilterSchema = lazySchema(() => z.record(z.string().check(z.minLength(1), z.maxLength(100)), z.union([scalar(), z.array(scalar()).check(z.maxLength(100))])));
/**
 * A `filter` of `recall` and the list calls: every key must match. A key
 * names a top-level `metadata` key or a known field; a scalar value matches
 * by equality, an array when the field equals any of its values (or, for an
 * array field, shares one).
 */
export type MetadataFilter = z.infer<typeof metadataFilterSchema>;

const timeRange = () => ({
  /** Inclusive lower bound on `createdAt` (epoch ms or Date). */
  since: z.optional(z.union([timestampSchema, z.date()])),
  /** Inclusive upper bound on `createdAt` (epoch ms or Date). */
  until: z.optional(z.union([timestampSchema, z.date()])),
});

/** A session's place among a user's sessions: 1 the first, -1 the latest. */
const sessionPlace = () => z.number().check(
  z.int(),
  z.gte(-1_000_000),
  z.lte(1_000_000),
  z.refine((n) => n !== 0, 'must not be 0: 1 is the first session, -1 the latest'),
);

export const recallOptionsSchema = lazySchema(() => z.strictObject({
  userId: z.optional(userIdSchema),
  k: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  types: z.optional(z.array(memoryTypeSchema).check(z.minLength(1))),
  /** Keep memories carrying at least one of these tags. */
  tags: z.optional(z.array(tagSchema).check(z.maxLength(50))),
  ...timeRange(),
  filter: z.optional(metadataFilterSchema),
  /** Archived episodes are left out unless asked for. */
  includeArchived: z.optional(z.boolean()),
  /** Record the access (`lastAccessedAt`, which recency decays from). Default true; inspectors and benchmarks turn it off. */
  touch: z.optional(z.boolean()),
  /**
   * The query's pre-computed embedding, from the same model as the
   * embedder: used instead of embedding the query (no embedder call). The
   * query text still feeds the keyword signal. Normalised to unit length.
   */
  embedding: z.optional(embeddingSchema),
  /**
   * At most this many hits from any one session (a memory's `sessionId`;
   * memories without one are not held back): the next best of other
   * sessions take the places, so a list spread over sessions ("which places
   * has Ana visited?") is not crowded out by one. Off by default: most
   * answers sit in one session beside the turns around them, which a cap
   * pushes out (bench/locomo.ts compares caps). Looks at up to the best 4,000
   * memories to fill k.
   */
  maxPerSession: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  /**
   * What a time the query names does ("on May 8th", "last week", "this
   * morning", "our first session", "two sessions ago"): `'boost'` (the
   * default) multiplies the memories inside it by 1 + `timeWindowBoost`, so
   * they rank first but the rest stay reachable; `'filter'` keeps only
   * them; `'off'` reads no time in the query. Either way the words that
   * named the time are not matched as words, and a question that asks for
   * nothing but that time ("What did we discuss on May 8th?") returns the
   * window's memories in time order.
   */
  time: z.optional(z.enum(['boost', 'filter', 'off'])),
  /** The IANA time zone the query's times are read in (default: createMemory's `timeZone`, else the runtime's). */
  timeZone: z.optional(timeZoneSchema),
  /** Only the memories of this session, or of these sessions (`sessionId`). */
  sessionId: z.optional(z.union([idSchema, z.array(idSchema).check(z.minLength(1), z.maxLength(1000))])),
  /**
   * Only the memories of the sessions at these places in the user's
   * sessions, ordered by their first memory's time: 1 is the first
   * session, 2 the second, -1 the latest, -2 the one before it; `from` and
   * `to` are inclusive and default to the first and the latest.
   * `{ from: -3 }` is the last three sessions.
   */
  sessions: z.optional(z.strictObject({ from: z.optional(sessionPlace()), to: z.optional(sessionPlace()) })),
  /**
   * The session the question is asked in: the query's references to
   * sessions count the ones before it ("our last conversation" is the one
   * before this), and "this conversation" is it.
   */
  currentSessionId: z.optional(idSchema),
}));
/**
 * Options of `memory.recall(query, options)`: whose memories (`userId`), how
 * many (`k`), which kinds and tags, a time window, a metadata `filter`, and
 * `maxPerSession`.
 * @interface
 */
export type RecallOptions = z.input<typeof recallOptionsSchema>;

const listBase = () => ({
  userId: z.optional(userIdSchema),
  limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100_000))),
  offset: z.optional(z.number().check(z.int(), z.gte(0))),
  tags: z.optional(z.array(tagSchema).check(z.maxLength(50))),
  ...timeRange(),
  filter: z.optional(metadataFilterSchema),
  /** By creation time; newest first by default. */
  order: z.optional(z.enum(['asc', 'desc'])),
});

export const episodeListQuerySchema = lazySchema(() => z.strictObject({
  ...listBase(),
  sessionId: z.optional(idSchema),
  parentId: z.optional(z.nullable(idSchema)),
  participants: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(50))),
  toolsUsed: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(50))),
  entities: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(50))),
  outcomeStatus: z.optional(z.array(outcomeStatusSchema).check(z.minLength(1))),
  state: z.optional(z.array(episodeStateSchema).check(z.minLength(1))),
}));
/**
 * Options of `memory.episodes.list()`: whose, which states, tags, outcome status and time window, how many.
 * @interface
 */
export type EpisodeListQuery = z.input<typeof episodeListQuerySchema>;

export const factListQuerySchema = lazySchema(() => z.strictObject({
  ...listBase(),
  category: z.optional(z.array(factCategorySchema).check(z.minLength(1))),
  includeRetired: z.optional(z.boolean()),
}));
/**
 * Options of `memory.facts.list()`: whose, which categories and tags, retired versions or not, how many.
 * @interface
 */
export type FactListQuery = z.input<typeof factListQuerySchema>;

export const exportOptionsSchema = lazySchema(() => z.strictObject({
  userId: z.optional(userIdSchema),
  /** Include embedding vectors (bigger file; import skips re-embedding when the embedder matches). Default true. */
  vectors: z.optional(z.boolean()),
}));
/**
 * Options of `memory.export()`: one user's memories or everyone's, with their vectors or without.
 * @interface
 */
export type ExportOptions = z.input<typeof exportOptionsSchema>;

export function toEpochMs(value: number | Date | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? value.getTime() : value;
}
