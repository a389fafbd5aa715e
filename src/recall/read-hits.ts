import type { EngineContext } from '../engine-context.js';
import { memoryKinds } from '../memories/registry.js';
import type { MemoryRecord } from '../schema/memory-record.js';
import { readByIds } from '../store/read-by-ids.js';

/** The records of recall's hits, in their order (undefined where another tab deleted one since the index saw it). */
export async function readHits(ctx: EngineContext, refs: readonly { id: string; kind: string }[]): Promise<(MemoryRecord | undefined)[]> {
  const { db } = ctx;
  // A hit's kind is how its document ranks: its record is in the table of each memory kind searched as that (memories/registry.ts).
  const wanted = memoryKinds()
    .map((kind) => ({ table: db.table(kind.table), ids: refs.filter((r) => r.kind === kind.searchAs).map((r) => r.id) }))
    .filter((w) => w.ids.length > 0);
  if (wanted.length === 0) return refs.map(() => undefined);
  // One read-only transaction per table, side by side, each answering as its reads do: an explicit transaction over
  // them all would also wait for its commit, another round trip to the browser's IndexedDB on every recall. Each
  // record is read whole either way; a record another tab deleted meanwhile is skipped.
  // Straight from IndexedDB (store/read-by-ids.ts); through Dexie when that could not read, so its error is the one told.
  const found =
    (await readByIds<MemoryRecord>(db, wanted.map((w) => ({ store: w.table.name, ids: w.ids })))) ??
    (await Promise.all(wanted.map((w) => (w.table as { bulkGet(ids: string[]): Promise<(MemoryRecord | undefined)[]> }).bulkGet(w.ids))));
  const byId = new Map<string, MemoryRecord>();
  for (const r of found.flat()) if (r) byId.set(r.id, r);
  return refs.map((r) => byId.get(r.id));
}
