import { mayReplace } from '../memories/episodes/dedup.js';
import type { Episode } from '../schema/episode.js';

/**
 * The episode invariants that must hold after a pull as after a local
 * write (memories/episodes/dedup.ts and retention/eviction.ts), decided so that
 * every device reaches the same answer from the same episodes: ties are
 * broken by id, never by which device looks. What they pick is deleted
 * through the commit path like any local delete, so it syncs as a
 * tombstone: an eviction on one device is an eviction everywhere.
 */

/** What the rules need of an episode. `vector` is unit length (stored vectors are). */
export interface EpisodeFacts {
  id: string;
  createdAt: number;
  pinned: boolean;
  provenance: Episode['provenance'];
  vector?: Float32Array;
}

/** Newest first: later `createdAt`, then larger id. */
function newestFirst(a: EpisodeFacts, b: EpisodeFacts): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * Dedup across devices (cosine ≥ `threshold`, newest wins, provenance-gated
 * as on write): the episodes to delete. Newest first, each surviving
 * episode removes the older near-duplicates it may replace.
 *
 * Example: the phone wrote "Booked the flight to Porto" at 09:00, the
 * laptop "Booked a flight to Porto" at 09:05 (cosine 0.95). After sync both
 * devices hold both; this returns the 09:00 one on both, and both delete it.
 */
export function duplicatesToDelete(episodes: readonly EpisodeFacts[], threshold: number): string[] {
  if (threshold <= 0) return [];
  const order = [...episodes].filter((e) => e.vector).sort(newestFirst);
  const gone = new Set<string>();
  for (const [i, newer] of order.entries()) {
    if (gone.has(newer.id)) continue;
    for (const older of order.slice(i + 1)) {
      if (gone.has(older.id) || older.vector!.length !== newer.vector!.length) continue;
      if (!mayReplace(newer.provenance, older.provenance)) continue;
      let similarity = 0;
      for (let d = 0; d < newer.vector!.length; d++) similarity += newer.vector![d]! * older.vector![d]!;
      if (similarity >= threshold) gone.add(older.id);
    }
  }
  return [...gone].sort();
}

/**
 * The count cap across devices: while a user has more than `maxEpisodes`
 * unpinned episodes, the oldest go (oldest `createdAt` first, then smallest
 * id, the order of the store's [userId+createdAt] index).
 *
 * Example: with a cap of 500, the phone and the laptop each add 10
 * episodes to a user who had 495. After sync both hold 515; both evict the
 * same 15 oldest.
 */
export function overCap(episodes: readonly EpisodeFacts[], maxEpisodes: number): string[] {
  const unpinned = episodes.filter((e) => !e.pinned).sort((a, b) => -newestFirst(a, b));
  return unpinned.slice(0, Math.max(0, unpinned.length - maxEpisodes)).map((e) => e.id);
}
