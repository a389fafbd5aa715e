import * as z from 'zod/mini';
import { userIdSchema } from './common.js';
import { lazySchema } from './lazy-schema.js';

/** Options of `episodes.sequence` (the replay itself is recall/sequence.ts). */
export const sequenceOptionsSchema = lazySchema(() => z.strictObject({
  userId: z.optional(userIdSchema),
  /** At most this many episodes (default 10). */
  limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  /** Relevance an episode must exceed to belong to the topic (default 0.5); episodes tagged with the topic always belong. */
  minRelevance: z.optional(z.number().check(z.gte(-1), z.lte(1))),
  includeArchived: z.optional(z.boolean()),
}));
/**
 * Options of `memory.episodes.sequence(topic, options)`: whose episodes, how many, and how relevant.
 * @interface
 */
export type SequenceOptions = z.input<typeof sequenceOptionsSchema>;
