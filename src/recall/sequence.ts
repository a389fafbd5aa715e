import * as z from 'zod';
import type { Episode } from '../schema/episode.js';
import { userIdSchema } from '../schema/common.js';

export const sequenceOptionsSchema = z
  .object({
    userId: userIdSchema.optional(),
    /** At most this many episodes (default 10). */
    limit: z.number().int().min(1).max(1000).optional(),
    /** Relevance an episode must exceed to belong to the topic (default 0.5); episodes tagged with the topic always belong. */
    minRelevance: z.number().min(-1).max(1).optional(),
    includeArchived: z.boolean().optional(),
  })
  .strict();
export type SequenceOptions = z.input<typeof sequenceOptionsSchema>;

/**
 * Chronological replay of a topic: take 2 × limit candidates by relevance
 * (and those tagged with the topic), keep those whose similarity to the topic
 * exceeds `minRelevance` or that carry the topic as a tag, order by start
 * time (oldest first) and return at most `limit`.
 */
export function orderSequence(candidates: { episode: Episode; similarity: number; tagged?: boolean }[], limit: number, minRelevance: number): Episode[] {
  return candidates
    .filter((c) => c.tagged === true || c.similarity > minRelevance)
    .map((c) => c.episode)
    .sort((a, b) => a.startedAt - b.startedAt || a.createdAt - b.createdAt)
    .slice(0, limit);
}
