import { vectorsFor } from '../embed/provided-embeddings.js';
import type { EngineContext } from '../engine-context.js';
import { readByIds } from '../store/read-by-ids.js';
import { toStorageError } from '../store/transaction-errors.js';
import { DEFAULT_USER_ID } from '../schema/common.js';
import type { MemoryRecord } from '../schema/memory-record.js';
import type { Turn } from '../schema/turn.js';
import { toEpochMs, type RecallOptions } from '../schema/query.js';
import { rankingFor, type ScoreParts } from '../search/ranking.js';
import type { TimeMention } from '../schema/time-mention.js';
import type { AccessTimes } from './access-times.js';
import { capPerSession } from './session-cap.js';
import { carryToFollowingTurns } from './turn-context.js';

export type { MemoryRecord };

/**
 * One memory `recall()` returned: the memory, its score and every part of
 * the score (`parts`), with the question a turn answers and the times its
 * text mentions when there are any.
 */
export interface RecallHit<M extends MemoryRecord = MemoryRecord> {
  memory: M;
  score: number;
  parts: ScoreParts;
  /**
   * On a turn ranked by the turn before it in its session (see
   * `parts.previousTurn`): that turn, the question it answers, so the hit can
   * be understood alone (`formatContext` quotes it).
   */
  answers?: Turn;
  /**
   * The times the memory's text gives relative to when it was written
   * ("yesterday", "last week"), resolved against its `createdAt`; absent
   * when there are none. `formatContext` shows each one's absolute date.
   */
  times?: TimeMention[];
}

/**
 * The memories that matter for `query`: ranked by the index, read from
 * IndexedDB in one transaction. A read that fails (the database closed by
 * `close({ timeoutMs })` past its deadline, or by the browser) is a typed
 * error: ClosedError or StorageError, never the IndexedDB library's own.
 */
export async function recall(ctx: EngineContext, access: AccessTimes, query: string, options: RecallOptions = {}, caller?: AbortSignal): Promise<RecallHit[]> {
  try {
    return await rankAndRead(ctx, access, query, options, caller);
  } catch (error) {
    throw toStorageError(error, 'recall');
  }
}

async function rankAndRead(ctx: EngineContext, access: AccessTimes, query: string, options: RecallOptions, caller: AbortSignal | undefined): Promise<RecallHit[]> {
  const userId = options.userId ?? DEFAULT_USER_ID;
  // Speakers the query names are matched as the field they are, not as words (search/named-speakers.ts).
  const named = ctx.ranking.speakerBoost > 0 ? ctx.index.namedSpeakers(userId, query) : { speakers: [], text: query };
  const [vector] = await vectorsFor(ctx, [{ text: named.text, embedding: options.embedding }], { call: 'recall', path: () => 'embedding' });
  const k = options.k ?? 10;
  const filter = {
    types: options.types,
    tags: options.tags,
    since: toEpochMs(options.since),
    until: toEpochMs(options.until),
    filter: options.filter,
    includeArchived: options.includeArchived,
  };
  const text = { vector: vector!, text: named.text };
  const ranking = rankingFor(ctx.ranking, query, named.speakers);
  const cap = options.maxPerSession;
  let out: RecallHit[] = [];
  // With a per-session cap, the best `fetch` are ranked and capped, and `fetch` grows until the k kept are certain:
  // every memory not fetched scores at most the last fetched one (and a turn it carries, less).
  for (let fetch = cap === undefined ? k : k * CAP_FETCH_FACTOR; ; fetch = Math.min(fetch * CAP_FETCH_FACTOR, MAX_CAP_FETCH)) {
    const hits = ctx.index.search(userId, text, { k: fetch, ...filter, ranking, now: ctx.now() });
    const records = await readHits(ctx, hits);
    // A record deleted by another tab since the index saw it is simply skipped.
    let ranked: RecallHit[] = hits.flatMap((hit, i) => (records[i] ? [{ memory: records[i]!, score: hit.score, parts: hit.parts }] : []));
    // Turns can be ranked by the turns before them in their session (turn-context.ts).
    if (ranked.some((hit) => hit.memory.type === 'turn')) ranked = await carryToFollowingTurns(ctx, userId, text, ranked, filter, fetch, ranking);
    if (cap === undefined) {
      out = ranked;
      break;
    }
    out = capPerSession(ranked, cap, k);
    const everything = hits.length < fetch;
    const certain = out.length === k && out[k - 1]!.score > hits[hits.length - 1]!.score;
    if (everything || certain || fetch === MAX_CAP_FETCH) break;
  }
  // The relative times were resolved when the memory was indexed (search/index-doc.ts); each hit gets its own copy.
  for (const hit of out) {
    const times = ctx.index.doc(hit.memory.id)?.times;
    if (times && times.length > 0) hit.times = times.map((time) => ({ ...time }));
  }
  // Accesses that earlier recalls recorded and whose write is still pending show in the records (recall/access-times.ts).
  for (const hit of out) {
    const at = access.accessedAt(hit.memory.id);
    if (at !== undefined && at > hit.memory.lastAccessedAt) hit.memory.lastAccessedAt = at;
  }
  // An aborted recall rejects (recall's caller races the signal) and touches nothing.
  if (options.touch !== false && !caller?.aborted) access.record(out.map((h) => h.memory));
  return out;
}

/** How much further than k a capped recall looks at first, and how much further each time the k kept are not yet certain. */
const CAP_FETCH_FACTOR = 4;
/** The most memories a capped recall ranks (one read of their records): past that it keeps what it found. */
const MAX_CAP_FETCH = 4_000;

async function readHits(ctx: EngineContext, refs: readonly { id: string; kind: string }[]): Promise<(MemoryRecord | undefined)[]> {
  const { db } = ctx;
  const idsOf = (kind: string) => refs.filter((r) => r.kind === kind).map((r) => r.id);
  const wanted = [
    { table: db.episodes, ids: idsOf('episode') },
    { table: db.facts, ids: idsOf('fact') },
    { table: db.turns, ids: idsOf('turn') },
  ].filter((w) => w.ids.length > 0);
  if (wanted.length === 0) return refs.map(() => undefined);
  // One read-only transaction per table, side by side, each answering as its reads do: an explicit transaction over
  // them all would also wait for its commit, another round trip to the browser's IndexedDB (1.3 ms → 1.05 ms a recall
  // at 100k, median). Each record is read whole either way; a record another tab deleted meanwhile is skipped.
  // Straight from IndexedDB (store/read-by-ids.ts); through Dexie when that could not read, so its error is the one told.
  const found =
    (await readByIds<MemoryRecord>(db, wanted.map((w) => ({ store: w.table.name, ids: w.ids })))) ??
    (await Promise.all(wanted.map((w) => (w.table as { bulkGet(ids: string[]): Promise<(MemoryRecord | undefined)[]> }).bulkGet(w.ids))));
  const byId = new Map<string, MemoryRecord>();
  for (const r of found.flat()) if (r) byId.set(r.id, r);
  return refs.map((r) => byId.get(r.id));
}
