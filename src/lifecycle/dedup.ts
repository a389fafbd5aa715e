import type { EngineContext } from '../engine-context.js';
import type { Episode } from '../schema/episode.js';

/**
 * Dedup-on-write. A new episode whose cosine to an existing episode of the
 * same user is ≥ `lifecycle.dedupThreshold` replaces it: newest wins.
 *
 * Provenance gate: an untrusted episode (LLM-written from user text) never
 * replaces a trusted one; it is stored beside it instead. A trusted episode
 * may replace anything. Threshold 0 turns dedup off.
 */
export interface DedupDecision {
  replacedId: string;
  similarity: number;
}

export function findDuplicate(ctx: EngineContext, incoming: Episode, vector: Float32Array): DedupDecision | null {
  const threshold = ctx.lifecycle.dedupThreshold;
  if (threshold <= 0) return null;
  // Ask for a few neighbours: the best one may be blocked by the provenance gate.
  const neighbours = ctx.index.nearest(incoming.userId, vector, 5, (doc) => doc.kind === 'episode' && doc.id !== incoming.id);
  for (const { id, score } of neighbours) {
    if (score < threshold) break;
    const existing = ctx.index.doc(id);
    if (!existing) continue;
    if (mayReplace(incoming.provenance, existing.fields.provenance as Episode['provenance'])) {
      return { replacedId: id, similarity: score };
    }
  }
  return null;
}

export function mayReplace(incoming: Episode['provenance'], existing: Episode['provenance'] | undefined): boolean {
  return incoming === 'trusted' || existing === 'untrusted';
}
