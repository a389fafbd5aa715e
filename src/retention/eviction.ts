import Dexie, { type Table } from 'dexie';
import type { MemoryKind, StoredMemory } from '../memories/registry.js';
import type { EngramDatabase } from '../store/database.js';

/** A memory that retention may evict: the app can pin it. Its kind's table indexes `[userId+createdAt]`. */
export type Evictable = StoredMemory & { pinned: boolean };

/** How long a kind's memories are kept (0: no limit), and how many unpinned ones a user keeps. */
export interface RetentionPolicy {
  ttlDays: number;
  maxCount: number;
  now: number;
}

/**
 * Eviction policy, run inside the write transaction of every episode or
 * turn write and by `memory.prune()`, for one user and one kind:
 *   1. TTL: unpinned memories created more than `ttlDays` ago go (0 = off).
 *   2. Cap: while the user has more than `maxCount` unpinned ones, the
 *      oldest (by creation time) go.
 * Pinned memories are exempt from both and do not count towards the cap,
 * and so are the ids in `keep` (the one being written).
 *
 * Returns the ids to evict; the caller deletes them in the same transaction.
 */
export async function selectEvictions(
  db: EngramDatabase,
  kind: MemoryKind<Evictable>,
  userId: string,
  policy: RetentionPolicy,
  keep: ReadonlySet<string> = new Set(),
): Promise<{ ttl: string[]; cap: string[] }> {
  const table = db.table(kind.table) as Table<Evictable, string>;
  const byAge = () => table.where('[userId+createdAt]').between([userId, Dexie.minKey], [userId, Dexie.maxKey], true, true);

  const ttl: string[] = [];
  if (policy.ttlDays > 0) {
    const cutoff = policy.now - policy.ttlDays * 86_400_000;
    const expired = await table
      .where('[userId+createdAt]')
      .between([userId, Dexie.minKey], [userId, cutoff], true, false)
      .filter((m) => !m.pinned && !keep.has(m.id))
      .primaryKeys();
    ttl.push(...expired);
  }

  // Fast path: the total (pinned included) within the cap means nothing to do.
  const total = await byAge().count();
  if (total - ttl.length <= policy.maxCount) return { ttl, cap: [] };

  const gone = new Set(ttl);
  // One getAll and a filter in memory: a Dexie `.filter()` walks a cursor one record per event-loop turn.
  const unpinned = (await byAge().toArray()).filter((m) => !m.pinned && !gone.has(m.id)).map((m) => m.id);
  const excess = unpinned.length - policy.maxCount;
  const cap: string[] = [];
  for (let i = 0; i < unpinned.length && cap.length < excess; i++) {
    if (!keep.has(unpinned[i]!)) cap.push(unpinned[i]!);
  }
  return { ttl, cap };
}

/** The oldest unpinned memories of a kind and user: what goes first when the disk is full. */
export async function oldestUnpinned(db: EngramDatabase, kind: MemoryKind<Evictable>, userId: string, count: number): Promise<string[]> {
  return (db.table(kind.table) as Table<Evictable, string>)
    .where('[userId+createdAt]')
    .between([userId, Dexie.minKey], [userId, Dexie.maxKey], true, true)
    .filter((m) => !m.pinned)
    .limit(count)
    .primaryKeys();
}

/** The users who have memories of a kind. */
export async function usersOf(db: EngramDatabase, kind: MemoryKind<Evictable>): Promise<string[]> {
  const keys = (await db.table(kind.table).orderBy('[userId+createdAt]').uniqueKeys()) as unknown as [string, number][];
  return [...new Set(keys.map(([userId]) => userId))];
}
