import type { Episode } from '../schema/episode.js';
import type { SequenceOptions } from '../schema/sequence-options.js';

export type { SequenceOptions };


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
