import type { Table } from 'dexie';
import type { RowChange } from './change-feed.js';

/**
 * The tables whose rows share one id space: recall, the search index and
 * vector blocks find a memory (or a task, by its description's vector) by
 * its id alone, so an id held by two of them would make one shadow the other.
 */
export const ID_SPACE_TABLES = ['episodes', 'facts', 'turns', 'tasks'] as const;
export type IdSpaceTable = (typeof ID_SPACE_TABLES)[number];

const isIdSpaceTable = (name: string): name is IdSpaceTable => (ID_SPACE_TABLES as readonly string[]).includes(name);

/** What one row of each table is called in a message. */
export const KIND_NAMES: Record<IdSpaceTable, string> = { episodes: 'an episode', facts: 'a fact', turns: 'a turn', tasks: 'a task' };

/** Where the check reads tables: the database (inside its ambient transaction) or a Dexie transaction object. */
export interface TableSource {
  table(name: string): Table;
}

/** An id written as one kind while a row of another kind holds it. */
export interface IdConflict {
  id: string;
  /** The table it was written to. */
  written: IdSpaceTable;
  /** The table that holds it too. */
  heldBy: IdSpaceTable;
}

/**
 * The first id among `ids` (by table) that a row of another id-space table
 * holds, read in the caller's transaction (which must include every table of
 * ID_SPACE_TABLES; pass the transaction object where the read must not leave
 * it), or undefined. One bulk read per table that others wrote to.
 */
export async function findIdConflict(db: TableSource, ids: ReadonlyMap<IdSpaceTable, readonly string[]>): Promise<IdConflict | undefined> {
  for (const heldBy of ID_SPACE_TABLES) {
    const others = [...ids].filter(([table]) => table !== heldBy);
    const keys = others.flatMap(([, list]) => list);
    if (keys.length === 0) continue;
    const rows = await db.table(heldBy).bulkGet(keys);
    const at = rows.findIndex((row) => row !== undefined);
    if (at < 0) continue;
    let offset = at;
    for (const [written, list] of others) {
      if (offset < list.length) return { id: list[offset]!, written, heldBy };
      offset -= list.length;
    }
  }
  return undefined;
}

/** The ids a transaction's rows put into each id-space table. */
export function idsWritten(rows: readonly RowChange[]): Map<IdSpaceTable, string[]> {
  const ids = new Map<IdSpaceTable, string[]>();
  for (const row of rows) {
    if (row.value === undefined || !isIdSpaceTable(row.table)) continue;
    let list = ids.get(row.table);
    if (!list) ids.set(row.table, (list = []));
    list.push(row.key);
  }
  return ids;
}

/** The tables a commit over `tables` runs in: with one id-space table, all of them (the check reads them). */
export function withIdSpace<T extends string>(tables: readonly T[]): (T | IdSpaceTable)[] {
  if (!tables.some(isIdSpaceTable)) return [...tables];
  return [...new Set<T | IdSpaceTable>([...tables, ...ID_SPACE_TABLES])];
}
