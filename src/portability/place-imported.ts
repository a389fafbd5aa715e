import Dexie from 'dexie';
import type { MemoryKind, StoredMemory } from '../memories/registry.js';
import type { EngramDatabase } from '../store/database.js';

/**
 * The imported records of a kind with a sequence field (a turn's `seq`:
 * memories/registry.ts), each with the place it takes in this store, read
 * in the import's transaction; records of other kinds as they are. A turn's
 * neighbours are the nearest `seq` of its user and session
 * (recall/turn-context.ts), so an export's sequence numbers, which count
 * from its own store's first turn, would interleave with the stored turns
 * of the same user and session: a stored question would be answered by an
 * imported reply. So:
 *
 * - a record that replaces a stored record of its user (same id) keeps that
 *   record's place, as `turns.add` does;
 * - a user's other imported records keep their own numbers when those are
 *   distinct and all after every stored record of the user (an export
 *   imported into an empty memory, or one that continues it), and are
 *   otherwise numbered after the user's last stored record, in their own order.
 */
export async function placeImported<R extends StoredMemory>(db: EngramDatabase, kind: MemoryKind<R>, records: readonly R[]): Promise<R[]> {
  const field = kind.sequenceField;
  if (!field || records.length === 0) return [...records];
  const table = db.table(kind.table);
  const seq = (record: R) => (record as unknown as Record<string, number>)[field]!;
  const setSeq = (record: R, value: number) => ((record as unknown as Record<string, number>)[field] = value);
  const stored = (await table.bulkGet(records.map((r) => r.id))) as (R | undefined)[];
  const placed = records.map((record, i) => {
    const old = stored[i];
    const copy = { ...record };
    if (old && old.userId === record.userId) setSeq(copy, seq(old));
    return copy;
  });
  const newByUser = new Map<string, R[]>();
  placed.forEach((record, i) => {
    if (stored[i]?.userId === record.userId) return;
    let list = newByUser.get(record.userId);
    if (!list) newByUser.set(record.userId, (list = []));
    list.push(record);
  });
  for (const [userId, fresh] of newByUser) {
    // Their own order: by their numbers, then as the export listed them (Array.prototype.sort is stable).
    fresh.sort((a, b) => seq(a) - seq(b));
    const last = (await table.where(`[userId+${field}]`).between([userId, Dexie.minKey], [userId, Dexie.maxKey]).last()) as R | undefined;
    const distinct = fresh.every((record, i) => i === 0 || seq(record) > seq(fresh[i - 1]!));
    if (distinct && (!last || seq(fresh[0]!) > seq(last))) continue;
    const first = last ? seq(last) + 1 : 0;
    fresh.forEach((record, i) => setSeq(record, first + i));
  }
  return placed;
}
