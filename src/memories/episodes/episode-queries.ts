import Dexie from 'dexie';
import type { Episode } from '../../schema/episode.js';
import type { EngramDatabase } from '../../store/database.js';

/**
 * The reads of the episodes table that features beyond the episodes API
 * make (capture's daily cap, stage 2's merge, sync's dedup and cap), so that
 * only the episodes module names its table. Each runs in the caller's
 * transaction, if any.
 */

/** The stored episode with this id, or undefined (a merge target may have been deleted meanwhile). */
export function findEpisode(db: EngramDatabase, id: string): Promise<Episode | undefined> {
  return db.episodes.get(id);
}

/** Every episode of one user. */
export function episodesOf(db: EngramDatabase, userId: string): Promise<Episode[]> {
  return db.episodes.where('userId').equals(userId).toArray();
}

/** How many of a user's episodes, written from a conversation (`source: 'episode'`), were created at or after `since`. */
export function countCapturedSince(db: EngramDatabase, userId: string, since: number): Promise<number> {
  return db.episodes
    .where('[userId+createdAt]')
    .between([userId, since], [userId, Dexie.maxKey], true, true)
    .filter((e) => e.source === 'episode')
    .count();
}

/** Deletes one episode record (its vector is the caller's: sync deletes vectors in batches). */
export function deleteEpisodeRecord(db: EngramDatabase, id: string): Promise<void> {
  return db.episodes.delete(id);
}
