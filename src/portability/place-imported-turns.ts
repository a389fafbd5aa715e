import Dexie from 'dexie';
import type { Turn } from '../schema/turn.js';
import type { EngramDatabase } from '../store/database.js';

/**
 * The imported turns with the `seq` each takes in this store, read in the
 * import's transaction. A turn's neighbours are the nearest `seq` of its
 * user and session (recall/turn-context.ts), so an export's sequence
 * numbers, which count from its own store's first turn, would interleave
 * with the stored turns of the same user and session: a stored question
 * would be answered by an imported reply. So:
 *
 * - a turn that replaces a stored turn of its user (same id) keeps that
 *   turn's place, as `turns.add` does;
 * - a user's other imported turns keep their own numbers when those are
 *   distinct and all after every stored turn of the user (an export
 *   imported into an empty memory, or one that continues it), and are
 *   otherwise numbered after the user's last stored turn, in their own order.
 */
export async function placeImportedTurns(db: EngramDatabase, turns: readonly Turn[]): Promise<Turn[]> {
  if (turns.length === 0) return [];
  const stored = await db.turns.bulkGet(turns.map((t) => t.id));
  const placed = turns.map((turn, i) => {
    const old = stored[i];
    return old && old.userId === turn.userId ? { ...turn, seq: old.seq } : { ...turn };
  });
  const newByUser = new Map<string, Turn[]>();
  placed.forEach((turn, i) => {
    if (stored[i]?.userId === turn.userId) return;
    let list = newByUser.get(turn.userId);
    if (!list) newByUser.set(turn.userId, (list = []));
    list.push(turn);
  });
  for (const [userId, fresh] of newByUser) {
    // Their own order: by their numbers, then as the export listed them (Array.prototype.sort is stable).
    fresh.sort((a, b) => a.seq - b.seq);
    const last = await db.turns.where('[userId+seq]').between([userId, Dexie.minKey], [userId, Dexie.maxKey]).last();
    const distinct = fresh.every((turn, i) => i === 0 || turn.seq > fresh[i - 1]!.seq);
    if (distinct && (!last || fresh[0]!.seq > last.seq)) continue;
    const first = last ? last.seq + 1 : 0;
    fresh.forEach((turn, i) => (turn.seq = first + i));
  }
  return placed;
}
