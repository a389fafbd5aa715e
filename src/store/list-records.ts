import Dexie, { type Collection } from 'dexie';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import type { Turn, TurnListQuery } from '../schema/turn.js';
import type { WithUser } from '../schema/default-user.js';
import { toEpochMs, type EpisodeListQuery, type FactListQuery, type MetadataFilter } from '../schema/query.js';
import { valueMatches } from '../schema/metadata-match.js';
import type { EngramDatabase } from './database.js';

/**
 * Lists one user's records by creation time through the `[userId+createdAt]`
 * index (a key range, not a scan); tag filters go through the multi-entry
 * `tags` index. Remaining conditions are checked per record.
 */
export async function listEpisodes(db: EngramDatabase, query: WithUser<EpisodeListQuery>): Promise<Episode[]> {
  const { userId } = query;
  const predicates: ((e: Episode) => boolean)[] = [];
  if (query.sessionId !== undefined) predicates.push((e) => e.sessionId === query.sessionId);
  if (query.parentId !== undefined) predicates.push((e) => e.parentId === query.parentId);
  for (const key of ['participants', 'toolsUsed', 'entities'] as const) {
    const wanted = query[key];
    if (wanted?.length) predicates.push((e) => e[key].some((v) => wanted.includes(v)));
  }
  if (query.outcomeStatus) predicates.push((e) => query.outcomeStatus!.includes(e.outcomeStatus));
  if (query.state) predicates.push((e) => query.state!.includes(e.state));
  const collection = baseCollection(db.episodes, userId, query, structuredIndex(query));
  return finish(collection, query, predicates, (e) => ({ ...e.metadata, ...e }));
}

export async function listFacts(db: EngramDatabase, query: WithUser<FactListQuery>): Promise<Fact[]> {
  const { userId } = query;
  const predicates: ((f: Fact) => boolean)[] = [];
  if (!query.includeRetired) predicates.push((f) => f.status === 'current');
  if (query.category) predicates.push((f) => query.category!.includes(f.category));
  return finish(baseCollection(db.facts, userId, query), query, predicates, (f) => ({ ...f.metadata, ...f }));
}

/** One user's turns, by the time they were said (newest first unless `order: 'asc'`). */
export async function listTurns(db: EngramDatabase, query: WithUser<TurnListQuery>): Promise<Turn[]> {
  const { userId } = query;
  const predicates: ((t: Turn) => boolean)[] = [];
  if (query.sessionId !== undefined) predicates.push((t) => t.sessionId === query.sessionId);
  if (query.speaker !== undefined) predicates.push((t) => t.speaker === query.speaker);
  return finish(baseCollection(db.turns, userId, query), query, predicates, (t) => ({ ...t.metadata, ...t }));
}

type Listable = { userId: string; createdAt: number; tags: string[] };

/** The most selective multi-entry index among the structured filters, if any. */
function structuredIndex(query: EpisodeListQuery): { index: string; values: string[] } | undefined {
  for (const key of ['entities', 'participants', 'toolsUsed'] as const) {
    const values = query[key];
    if (values?.length) return { index: key, values };
  }
  return undefined;
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
  predicates: ((r: T) => boolean)[],
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
