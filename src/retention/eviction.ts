import Dexie from 'dexie';
import type { EngramDatabase } from '../store/database.js';
import { deleteVectors } from '../store/vector-blocks.js';

/**
 * Eviction policy, run inside the write transaction of every episode write
 * and by `memory.prune()`:
 *   1. TTL: unpinned episodes created more than `ttlDays` ago go (0 = off).
 *   2. Cap: while a user has more than `maxEpisodes` unpinned episodes, the
 *      oldest (by creation time) go.
 * Pinned episodes are exempt from both and do not count towards the cap.
 *
 * Returns the ids to evict; the caller deletes them in the same transaction.
 */
export async function selectEvictions(
  db: EngramDatabase,
  userId: string,
  policy: { ttlDays: number; maxEpisodes: number; now: number },
  keep: ReadonlySet<string> = new Set(),
): Promise<{ ttl: string[]; cap: string[] }> {
  const byAge = () =>
    db.episodes.where('[userId+createdAt]').between([userId, Dexie.minKey], [userId, Dexie.maxKey], true, true);

  const ttl: string[] = [];
  if (policy.ttlDays > 0) {
    const cutoff = policy.now - policy.ttlDays * 86_400_000;
    const expired = await db.episodes
      .where('[userId+createdAt]')
      .between([userId, Dexie.minKey], [userId, cutoff], true, false)
      .filter((e) => !e.pinned && !keep.has(e.id))
      .primaryKeys();
    ttl.push(...expired);
  }

  // Fast path: the total (pinned included) within the cap means nothing to do.
  const total = await byAge().count();
  if (total - ttl.length <= policy.maxEpisodes) return { ttl, cap: [] };

  const gone = new Set(ttl);
  // One getAll and a filter in memory: a Dexie `.filter()` walks a cursor one
  // record per event-loop turn, ~25x slower at 1k episodes (bench/lifecycle.ts).
  const unpinned = (await byAge().toArray()).filter((e) => !e.pinned && !gone.has(e.id)).map((e) => e.id);
  const excess = unpinned.length - policy.maxEpisodes;
  const cap: string[] = [];
  for (let i = 0; i < unpinned.length && cap.length < excess; i++) {
    if (!keep.has(unpinned[i]!)) cap.push(unpinned[i]!);
  }
  return { ttl, cap };
}

/** The oldest unpinned episodes of a user: what goes first when the disk is full. */
export async function oldestUnpinned(db: EngramDatabase, userId: string, count: number): Promise<string[]> {
  return db.episodes
    .where('[userId+createdAt]')
    .between([userId, Dexie.minKey], [userId, Dexie.maxKey], true, true)
    .filter((e) => !e.pinned)
    .limit(count)
    .primaryKeys();
}

/**
 * Deletes episodes with their vectors and splices them out of chains: their
 * children are re-pointed to their parent, so an arc never dangles.
 */
export async function deleteEpisodesInTx(db: EngramDatabase, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const doomed = new Set(ids);
  const records = await db.episodes.bulkGet(ids);
  for (const record of records) {
    if (!record) continue;
    let parent = record.parentId;
    // Skip parents that are being deleted in the same batch.
    const seen = new Set<string>();
    while (parent && doomed.has(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = records.find((r) => r?.id === parent)?.parentId ?? null;
    }
    await db.episodes.where('parentId').equals(record.id).modify((child) => {
      if (!doomed.has(child.id)) child.parentId = parent && !doomed.has(parent) ? parent : null;
    });
  }
  await db.episodes.bulkDelete(ids);
  await deleteVectors(db, ids);
}
