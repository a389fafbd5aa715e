import { memoryKinds, searchFormOf, type StoredMemory } from '../memories/registry.js';
import type { EngramDatabase } from '../store/database.js';
import type { IndexLogRow } from '../schema/records.js';
import { vectorAt } from '../store/vector-blocks.js';
import type { IndexDoc } from '../search/index-doc.js';

/**
 * The write log's rows from mark `from` to mark `to`, transaction after
 * transaction, when the log (`indexLog`, store/write-mark.ts) holds every
 * transaction in between and each row can tell its memories: each
 * transaction's rows name the mark before it and after it, so the log is
 * followed from mark to mark. Null when it does not get there (a write that
 * was not logged: an engine that keeps no snapshot, an older engine, a log
 * emptied by a save of another snapshot) or a row cannot tell its memories
 * (a range delete): no replay can cover those writes.
 */
export function logBetween(rows: readonly IndexLogRow[], from: string, to: string): IndexLogRow[] | null {
  const after = new Map<string, IndexLogRow[]>();
  for (const row of rows) {
    const list = after.get(row.previous);
    if (!list) after.set(row.previous, [row]);
    // One transaction's rows share both marks; two transactions from one mark would be a fork (never written so).
    else if (list[0]!.mark === row.mark) list.push(row);
    else return null;
  }
  const chain: IndexLogRow[] = [];
  let at = from;
  for (let steps = 0; at !== to; steps++) {
    const step = after.get(at);
    if (!step || steps > rows.length) return null;
    for (const row of step) {
      if (row.ids === null) return null;
      chain.push(row);
    }
    at = step[0]!.mark;
  }
  return chain;
}

/**
 * The memories written since the store was at `from`, and the vector
 * blocks, when the write log leads from `from` to `to` (`logBetween`); null
 * when it does not: then the caller reads every record instead.
 */
export function writtenSince(rows: readonly IndexLogRow[], from: string, to: string): { ids: Set<string>; blocks: Set<string>; tables: Map<string, MemoryTable> } | null {
  const chain = logBetween(rows, from, to);
  if (!chain) return null;
  const ids = new Set<string>();
  const blocks = new Set<string>();
  // Each memory's table, from the rows that name one; null when two rows disagree (then every table is read).
  const tableOf = new Map<string, MemoryTable | null>();
  for (const row of chain) {
    for (const id of row.ids!) {
      ids.add(id);
      if (row.table) tableOf.set(id, tableOf.has(id) && tableOf.get(id) !== row.table ? null : row.table);
    }
    for (const block of row.blocks ?? []) blocks.add(block);
  }
  const tables = new Map<string, MemoryTable>();
  for (const [id, table] of tableOf) if (table) tables.set(id, table);
  return { ids, blocks, tables };
}

/** A memory kind's table (memories/registry.ts), as a log row names it. */
type MemoryTable = string;

/** A memory written since the snapshot: its document and text now, and its vector when a logged write changed it. */
export interface WrittenMemory {
  id: string;
  /** None when it was deleted or is not searchable (a retired fact). */
  now?: { doc: IndexDoc; text: string; vector?: Float32Array };
}

/**
 * Each memory's current state, read inside the caller's transaction (which
 * must cover every memory kind's table and `vectorBlocks`): its document and
 * indexed text, and its vector from the vector blocks the log says were
 * written since (`blocks`, read by key). A memory is read from the table the
 * log names for it (`tables`; the first kind's when it names none), and from
 * every table when the record is not there, so a replay reads each memory
 * from one table, not from all. A memory whose vector no logged
 * write changed has the one the snapshot holds: the caller takes it from
 * the loaded index.
 */
export async function writtenMemories(
  db: EngramDatabase,
  ids: readonly string[],
  blocks: readonly string[],
  dimension: number,
  tables: ReadonlyMap<string, MemoryTable> = new Map(),
): Promise<WrittenMemory[]> {
  const kinds = memoryKinds();
  const byTable = new Map(kinds.map((kind) => [kind.table, [] as string[]]));
  for (const id of ids) (byTable.get(tables.get(id) ?? kinds[0]!.table) ?? byTable.get(kinds[0]!.table)!).push(id);
  const read = (table: string, keys: string[]) => db.table(table).bulkGet(keys) as Promise<(StoredMemory | undefined)[]>;
  const [found, written] = await Promise.all([Promise.all([...byTable].map(([table, keys]) => read(table, keys))), db.vectorBlocks.bulkGet([...blocks])]);
  const records = new Map<string, StoredMemory>();
  [...byTable.values()].forEach((keys, t) => keys.forEach((id, i) => found[t]![i] && records.set(id, found[t]![i]!)));
  // Not where the log said (or no table named): looked for everywhere, in the registry's order, as a read of every table would.
  const elsewhere = ids.filter((id) => !records.has(id));
  if (elsewhere.length > 0) {
    const everywhere = await Promise.all(kinds.map((kind) => read(kind.table, elsewhere)));
    elsewhere.forEach((id, i) => {
      const record = everywhere.map((list) => list[i]).find((found) => found !== undefined);
      if (record) records.set(id, record);
    });
  }
  const vectors = new Map<string, Float32Array>();
  for (const block of written) {
    if (!block || block.kind === 'task' || block.vectors.length !== block.ids.length * dimension) continue;
    block.ids.forEach((id, i) => vectors.set(id, vectorAt(block, i)));
  }
  return ids.map((id) => {
    const record = records.get(id);
    const form = record && searchFormOf(record);
    return form?.doc ? { id, now: { doc: form.doc, text: form.text, vector: vectors.get(id) } } : { id };
  });
}
