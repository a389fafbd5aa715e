import Dexie, { type Collection } from 'dexie';
import type { MemoryKind, StoredMemory } from '../memories/registry.js';
import { toEpochMs, type MetadataFilter } from '../schema/query.js';
import { valueMatches } from '../schema/metadata-match.js';
import type { EngramDatabase } from './database.js';

/** What listing reads of a memory: its user, time, tags and metadata (its kind's table indexes `[userId+createdAt]` and `*tags`). */
export type Listable = StoredMemory & { tags: string[]; metadata: Record<string, unknown> };

/** The conditions every listing takes; the operation's schema filled in the user (schema/default-user.ts). */
export interface ListQuery {
  userId: string;
  since?: number | Date;
  until?: number | Date;
  tags?: string[];
  filter?: MetadataFilter;
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
}

/**
 * Lists one user's records of a kind by creation time through the
 * `[userId+createdAt]` index (a key range, not a scan); tag filters go
 * through the multi-entry `tags` index, and `structured` (the most selective
 * of a kind's own multi-entry filters) through its index. `predicates` (the
 * kind's own conditions) and the metadata filter, which matches a record's
 * fields and its metadata's, are checked per record.
 */
export function listRecords<R extends Listable>(
  db: EngramDatabase,
  kind: MemoryKind<R>,
  query: ListQuery,
  predicates: readonly ((r: R) => boolean)[] = [],
  structured?: { index: string; values: string[] },
): Promise<R[]> {
  const collection = baseCollection(db.table(kind.table) as Dexie.Table<R, string>, query.userId, query, structured);
  return finish(collection, query, predicates, (r) => ({ ...r.metadata, ...r }));
}

function baseCollection<T extends Listable>(
  table: Dexie.Table<T, string>,
  userId: string,
  query: { since?: number | Date; until?: number | Date; tags?: string[] },
  structured?: { index: string; values: string[] },
): Collection<T, string> {
  const since = toEpochMs(query.since);
  const until = toEpochMs(query.until);
  const inRange = (r: T) => r.userId === userId && (since === undefined || r.createdAt >= since) && (until === undefined || r.createdAt <= until);
  if (query.tags?.length) return table.where('tags').anyOf(query.tags).distinct().filter(inRange);
  if (structured) return table.where(structured.index).anyOf(structured.values).distinct().filter(inRange);
  return table
    .where('[userId+createdAt]')
    .between([userId, since ?? Dexie.minKey], [userId, until ?? Dexie.maxKey], true, true);
}

async function finish<T extends Listable>(
  collection: Collection<T, string>,
  query: { filter?: MetadataFilter; order?: 'asc' | 'desc'; offset?: number; limit?: number },
  predicates: readonly ((r: T) => boolean)[],
  fieldsOf: (r: T) => Record<string, unknown>,
): Promise<T[]> {
  const filterEntries = Object.entries(query.filter ?? {});
  const keep = (r: T) =>
    predicates.every((p) => p(r)) &&
    filterEntries.every(([key, wanted]) => {
      const fields = fieldsOf(r);
      return Object.prototype.hasOwnProperty.call(fields, key) && valueMatches(fields[key], wanted);
    });
  const rows = (await collection.filter(keep).toArray()).sort((a, b) => a.createdAt - b.createdAt);
  if (query.order !== 'asc') rows.reverse();
  const offset = query.offset ?? 0;
  return rows.slice(offset, query.limit === undefined ? undefined : offset + query.limit);
}
