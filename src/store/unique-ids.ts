import { idSpaceKinds, type VectoredKind } from '../memories/registry.js';
import Dexie, { type Table } from 'dexie';
import type { RowChange } from './change-feed.js';

/**
 * The tables whose rows share one id space: every memory kind's and the
 * tasks' (memories/registry.ts). Recall, the search index and vector blocks
 * find a memory (or a task, by its description's vector) by its id alone,
 * so an id held by two of them would make one shadow the other.
 */
export function idSpaceTables(): string[] {
  return idSpaceKinds().map((kind) => kind.table);
}

/** The tables of the id space as a sentence names them ("facts, episodes, turns and tasks"). */
export function idSpaceNames(): string {
  const names = idSpaceTables();
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');
}

/** Where the check reads tables: the database (inside its ambient transaction) or a Dexie transaction object. */
export interface TableSource {
  table(name: string): Table;
}

/** An id written as one kind while a row of another kind holds it. */
export interface IdConflict {
  id: string;
  /** The kind it was written as. */
  written: VectoredKind;
  /** The kind that holds it too. */
  heldBy: VectoredKind;
}

/**
 * The first id among `ids` (by table) that a row of another id-space table
 * holds, read in the caller's transaction (which must include every table of
 * the id space; pass the transaction object where the read must not leave
 * it), or undefined. One bulk read per table that others wrote to, all
 * issued at once: IndexedDB runs a transaction's requests in order either
 * way, and a read issued before the previous one's answer saves a round
 * trip to the browser's storage process for each table (the check runs in
 * every commit). The answer is the same as reading them one by one: the
 * first conflict in the id space's table order.
 */
export async function findIdConflict(db: TableSource, ids: ReadonlyMap<string, readonly string[]>): Promise<IdConflict | undefined> {
  const kinds = idSpaceKinds();
  const kindIn = (table: string) => kinds.find((kind) => kind.table === table)!;
  const reads = kinds.map((heldBy) => {
    const others = [...ids].filter(([table]) => table !== heldBy.table);
    const keys = others.flatMap(([, list]) => list);
    return { heldBy, others, rows: keys.length === 0 ? undefined : db.table(heldBy.table).bulkGet(keys) };
  });
  // Dexie's own all(): a Dexie promise awaited keeps the transaction's zone.
  const answers = await Dexie.Promise.all(reads.map((read) => read.rows ?? []));
  for (const [i, { heldBy, others }] of reads.entries()) {
    const rows = answers[i] as readonly unknown[];
    const at = rows.findIndex((row) => row !== undefined);
    if (at < 0) continue;
    let offset = at;
    for (const [written, list] of others) {
      if (offset < list.length) return { id: list[offset]!, written: kindIn(written), heldBy };
      offset -= list.length;
    }
  }
  return undefined;
}

/** The ids a transaction's rows put into each id-space table, but those in `skip` (drawn at random for the commit: see commit.ts). */
export function idsWritten(rows: readonly RowChange[], skip: ReadonlySet<string> = new Set()): Map<string, string[]> {
  const space = new Set(idSpaceTables());
  const ids = new Map<string, string[]>();
  for (const row of rows) {
    if (row.value === undefined || !space.has(row.table) || skip.has(row.key)) continue;
    let list = ids.get(row.table);
    if (!list) ids.set(row.table, (list = []));
    list.push(row.key);
  }
  return ids;
}

/** The tables a commit over `tables` runs in: with one id-space table, all of them (the check reads them). */
export function withIdSpace(tables: readonly string[]): string[] {
  const space = idSpaceTables();
  if (!tables.some((table) => space.includes(table))) return [...tables];
  return [...new Set([...tables, ...space])];
}
