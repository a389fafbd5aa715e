import type { EngineContext } from '../../engine-context.js';
import type { Episode } from '../../schema/episode.js';
import { getVectors } from '../../store/vector-blocks.js';

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

/** `stored`: the ids IndexedDB holds now; an index entry outside it is stale (deleted by another tab) and cannot be replaced. */
export function findDuplicate(ctx: EngineContext, incoming: Episode, vector: Float32Array, stored?: ReadonlySet<string>): DedupDecision | null {
  const threshold = ctx.lifecycle.dedupThreshold;
  if (threshold <= 0) return null;
  // Ask for a few neighbours: the best one may be blocked by the provenance gate.
  const neighbours = ctx.index.nearest(incoming.userId, vector, 5, (doc) => doc.kind === 'episode' && doc.id !== incoming.id && (!stored || stored.has(doc.id)));
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

/**
 * The same rule over episodes this engine's index has not seen: ones another
 * tab (another engine on this database) committed since this engine last
 * refreshed. The write transaction reads them from IndexedDB, so two tabs
 * writing the same thing at once still end with one episode, not two.
 */
export function findDuplicateAmong(
  ctx: EngineContext,
  incoming: Episode,
  vector: Float32Array,
  candidates: readonly { episode: Episode; vector: Float32Array }[],
): DedupDecision | null {
  const threshold = ctx.lifecycle.dedupThreshold;
  if (threshold <= 0) return null;
  let best: DedupDecision | null = null;
  for (const candidate of candidates) {
    if (candidate.episode.id === incoming.id || candidate.vector.length !== vector.length) continue;
    if (!mayReplace(incoming.provenance, candidate.episode.provenance)) continue;
    // Stored vectors are unit length, so the dot product is the cosine.
    let similarity = 0;
    for (let i = 0; i < vector.length; i++) similarity += vector[i]! * candidate.vector[i]!;
    if (similarity >= threshold && (!best || similarity > best.similarity)) best = { replacedId: candidate.episode.id, similarity };
  }
  return best;
}

/**
 * Inside a write transaction: the duplicate candidates among all of the
 * user's episodes. The ids are read from IndexedDB; then, in one synchronous
 * step (so the cross-tab refresh cannot move an episode between the two
 * halves), the index answers for the episodes it holds and the rest are
 * read and compared here. Checking the index only before the transaction
 * missed an episode another tab committed while this one waited for it.
 */
export async function duplicatesInTransaction(ctx: EngineContext, incoming: Episode, vector: Float32Array): Promise<DedupDecision[]> {
  if (ctx.lifecycle.dedupThreshold <= 0) return [];
  // Keys only: cheap next to the embedding that preceded it, and exact whatever other tabs did.
  const ids = await ctx.db.episodes.where('userId').equals(incoming.userId).primaryKeys();
  // Only entries IndexedDB still holds: a stale one (deleted in another tab) must not hide a live duplicate behind it.
  const indexed = findDuplicate(ctx, incoming, vector, new Set(ids));
  const unseen = ids.filter((id) => !ctx.index.has(id));
  const found = indexed ? [indexed] : [];
  if (unseen.length === 0) return found;
  const [episodes, vectors] = await Promise.all([ctx.db.episodes.bulkGet(unseen), getVectors(ctx.db, unseen)]);
  const candidates = unseen.flatMap((id, i) => {
    const episode = episodes[i];
    const stored = vectors.get(id)?.vector;
    return episode && stored ? [{ episode, vector: stored }] : [];
  });
  const other = findDuplicateAmong(ctx, incoming, vector, candidates);
  return other ? [...found, other] : found;
}

export function mayReplace(incoming: Episode['provenance'], existing: Episode['provenance'] | undefined): boolean {
  return incoming === 'trusted' || existing === 'untrusted';
}
