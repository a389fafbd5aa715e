import type { EngineContext } from '../../engine-context.js';
import type { Episode } from '../../schema/episode.js';

/**
 * Auto-chaining: without an explicit `parentId`, a new episode links to the
 * most similar episode of the same user that ended within
 * `lifecycle.chainWindowHours` (default 48) when the cosine is above
 * `lifecycle.chainThreshold` (default 0.85). An explicit `parentId` always
 * wins and `parentId: null` means "no parent".
 */
export function findAutoParent(
  ctx: EngineContext,
  incoming: Episode,
  vector: Float32Array,
  exclude: ReadonlySet<string>,
): string | null {
  const windowStart = incoming.startedAt - ctx.lifecycle.chainWindowHours * 3_600_000;
  const neighbours = ctx.index.nearest(incoming.userId, vector, 20, (doc) => doc.kind === 'episode' && !exclude.has(doc.id));
  for (const { id, score } of neighbours) {
    if (score <= ctx.lifecycle.chainThreshold) break;
    const endedAt = ctx.index.doc(id)?.fields.endedAt as number | undefined;
    if (endedAt !== undefined && endedAt >= windowStart && endedAt <= incoming.startedAt) return id;
  }
  return null;
}

/** Walks parent links to the root and returns the arc root-first; stops on a cycle or a missing link. */
export async function chainOf(
  getEpisode: (id: string) => Promise<Episode | undefined>,
  start: Episode,
): Promise<Episode[]> {
  const arc: Episode[] = [start];
  const seen = new Set([start.id]);
  let current = start;
  while (current.parentId && !seen.has(current.parentId)) {
    const parent = await getEpisode(current.parentId);
    if (!parent) break;
    seen.add(parent.id);
    arc.push(parent);
    current = parent;
  }
  return arc.reverse();
}
