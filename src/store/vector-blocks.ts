import { newId } from '../ids.js';
import type { EngramDatabase } from './database.js';
import type { StoredVector, VectorBlock } from '../schema/records.js';

/**
 * The vectors of memories are stored in blocks: one IndexedDB row holds the
 * vectors of up to `VECTOR_BLOCK_MAX` memories of one user and kind, end to
 * end in one Float32Array, with their ids in row order.
 *
 * Why: Chromium's IndexedDB charges mostly per request (each put is a
 * round trip to the browser process, whatever its size), so one row per
 * vector made a bulk insert two puts per memory, the record and its vector.
 * In blocks, a batch of 1,000 facts costs 1,000 record puts and 4 vector
 * puts. `npm run bench:idb` (raw IndexedDB in Chromium, fact-shaped rows)
 * compares the layouts.
 *
 * The multi-entry `ids` index finds the block holding a memory's vector. A
 * single write (one episode, one fact) is a block of one. Removing a vector
 * rewrites its block without it, or deletes the block it empties, so nothing
 * of a deleted memory stays on disk.
 *
 * Invariant: a memory id has at most one stored vector, and only while its
 * record exists (for tasks: while the task is completed). Every function here
 * runs inside the caller's transaction, which must include `vectorBlocks`.
 */

/** Memories per block: 256 × 384-d is 384 KB, cheap to rewrite when one of them is deleted. */
export const VECTOR_BLOCK_MAX = 256;

/** The vector of row `i` of a block (a view into the block's array, not a copy). */
export function vectorAt(block: VectorBlock, i: number): Float32Array {
  const dimension = block.vectors.length / block.ids.length;
  return block.vectors.subarray(i * dimension, (i + 1) * dimension);
}

/** Every vector of `blocks`, as entries (views into the blocks' arrays). */
export function unpackBlocks(blocks: Iterable<VectorBlock>): StoredVector[] {
  const out: StoredVector[] = [];
  for (const block of blocks) {
    for (let i = 0; i < block.ids.length; i++) out.push({ id: block.ids[i]!, userId: block.userId, kind: block.kind, vector: vectorAt(block, i) });
  }
  return out;
}

/**
 * Stores `entries`, replacing any stored vector of the same ids. `mayExist`
 * narrows which ids can have one already (default: every id): ids known to be
 * new, such as freshly generated ones, need no lookup, which is what keeps a
 * bulk insert at one request per block.
 */
export async function putVectors(
  db: EngramDatabase,
  entries: readonly StoredVector[],
  options: { mayExist?: readonly string[] } = {},
): Promise<void> {
  // The last entry of an id wins, as with a row per id.
  const latest = new Map<string, StoredVector>();
  for (const entry of entries) {
    latest.delete(entry.id);
    latest.set(entry.id, entry);
  }
  const mayExist = options.mayExist ?? [...latest.keys()];
  // Not even an await when there is nothing to delete: a transaction whose first step awaits a settled promise
  // instead of a request commits before the add (Dexie's PrematureCommitError; seen re-embedding at open).
  if (mayExist.length > 0) await deleteVectors(db, mayExist);
  const rows = packBlocks(latest.values());
  if (rows.length) await db.vectorBlocks.bulkAdd(rows);
}

/** New blocks holding `entries`, grouped by kind, dimension and user, at most `VECTOR_BLOCK_MAX` each. */
export function packBlocks(entries: Iterable<StoredVector>): VectorBlock[] {
  const groups = new Map<string, StoredVector[]>();
  for (const entry of entries) {
    const key = `${entry.kind}\u0000${entry.vector.length}\u0000${entry.userId}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(entry);
  }
  const rows: VectorBlock[] = [];
  for (const group of groups.values()) {
    const dimension = group[0]!.vector.length;
    for (let start = 0; start < group.length; start += VECTOR_BLOCK_MAX) {
      const slice = group.slice(start, start + VECTOR_BLOCK_MAX);
      const vectors = new Float32Array(slice.length * dimension);
      slice.forEach((entry, i) => vectors.set(entry.vector, i * dimension));
      rows.push({ id: newId(), userId: slice[0]!.userId, kind: slice[0]!.kind, ids: slice.map((e) => e.id), vectors });
    }
  }
  return rows;
}

/** The stored vectors of `ids` (those that have one), by id. */
export async function getVectors(db: EngramDatabase, ids: readonly string[]): Promise<Map<string, StoredVector>> {
  const wanted = new Set(ids);
  const out = new Map<string, StoredVector>();
  for (const block of await blocksHolding(db, ids)) {
    block.ids.forEach((id, i) => {
      if (wanted.has(id)) out.set(id, { id, userId: block.userId, kind: block.kind, vector: vectorAt(block, i) });
    });
  }
  return out;
}

/** Deletes the stored vectors of `ids`: their blocks are rewritten without them, or deleted when emptied. */
export async function deleteVectors(db: EngramDatabase, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const doomed = new Set(ids);
  for (const block of await blocksHolding(db, ids)) {
    const kept = block.ids.flatMap((id, i) => (doomed.has(id) ? [] : [i]));
    if (kept.length === 0) {
      await db.vectorBlocks.delete(block.id);
      continue;
    }
    const dimension = block.vectors.length / block.ids.length;
    const vectors = new Float32Array(kept.length * dimension);
    kept.forEach((row, i) => vectors.set(vectorAt(block, row), i * dimension));
    await db.vectorBlocks.put({ ...block, ids: kept.map((row) => block.ids[row]!), vectors });
  }
}

/**
 * The blocks holding any of `ids`. One index lookup per id, all issued at
 * once (a Dexie `anyOf` walks a cursor, one round trip per key in turn).
 */
async function blocksHolding(db: EngramDatabase, ids: readonly string[]): Promise<VectorBlock[]> {
  if (ids.length === 0) return [];
  const keys = await Promise.all([...new Set(ids)].map((id) => db.vectorBlocks.where('ids').equals(id).primaryKeys()));
  const unique = [...new Set(keys.flat())];
  if (unique.length === 0) return [];
  return (await db.vectorBlocks.bulkGet(unique)).filter((block): block is VectorBlock => block !== undefined);
}
