import { vectorsFor } from '../embed/provided-embeddings.js';
import type { EngineContext } from '../engine-context.js';
import { toStorageError } from '../store/transaction-errors.js';
import type { WithUser } from '../schema/default-user.js';
import type { MemoryRecord } from '../schema/memory-record.js';
import type { Turn } from '../schema/turn.js';
import { toEpochMs, type RecallOptions } from '../schema/query.js';
import { rankingFor, type Ranking, type ScoreParts } from '../search/ranking.js';
import type { TimeMention } from '../schema/time-mention.js';
import type { AccessTimes } from './access-times.js';
import { capPerSession } from './session-cap.js';
import { carryToFollowingTurns } from './turn-context.js';
import { orderedSessions, readQueryTimes } from './query-times.js';
import { timeSlice } from './time-slice.js';
import { readHits } from './read-hits.js';
import type { DocFilter } from '../search/filters.js';

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
   * The memory's session (its `sessionId`): its place among the user's
   * sessions (`number`: 1 is the first, by their first memory's time) and
   * the times of its first and last memory. `formatContext` groups by it.
   */
  session?: { id: string; number: number; first: number; last: number };
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
export async function recall(ctx: EngineContext, access: AccessTimes, query: string, options: WithUser<RecallOptions>, caller?: AbortSignal): Promise<RecallHit[]> {
  try {
    return await rankAndRead(ctx, access, query, options, caller);
  } catch (error) {
    throw toStorageError(error, 'recall');
  }
}

async function rankAndRead(ctx: EngineContext, access: AccessTimes, query: string, options: WithUser<RecallOptions>, caller: AbortSignal | undefined): Promise<RecallHit[]> {
  const { userId } = options;
  const now = ctx.now();
  // Speakers the query names are matched as the field they are, not as words (search/named-speakers.ts).
  const named = ctx.ranking.speakerBoost > 0 ? ctx.index.namedSpeakers(userId, query) : { speakers: [], text: query };
  // The times it names are windows over the memories' times, not words (recall/query-times.ts).
  const mode = options.time ?? 'boost';
  const times = mode === 'off' ? undefined : await readQueryTimes(ctx.index, ctx.timeParser, userId, named.text, { now, timeZone: options.timeZone ?? ctx.timeZone, currentSessionId: options.currentSessionId });
  const words = times?.text ?? named.text;
  const [vector] = await vectorsFor(ctx, [{ text: words, embedding: options.embedding }], { call: 'recall', path: () => 'embedding' });
  const k = options.k ?? 10;
  const filter: DocFilter = {
    types: options.types,
    tags: options.tags,
    since: toEpochMs(options.since),
    until: toEpochMs(options.until),
    filter: options.filter,
    includeArchived: options.includeArchived,
    sessionIds: sessionFilter(ctx, userId, options, now),
    windows: mode === 'filter' ? times?.windows : undefined,
  };
  const text = { vector: vector!, text: words };
  const ranking = rankingFor(ctx.ranking, query, named.speakers, mode === 'boost' ? times?.windows : undefined);
  const out = times?.slice && times.windows ? await timeSlice(ctx, userId, text, filter, ranking, times.windows, k, now) : await ranked(ctx, userId, text, filter, ranking, k, options.maxPerSession, now);
  // The relative times were resolved when the memory was indexed (search/index-doc.ts); each hit gets its own copy.
  for (const hit of out) {
    const times = ctx.index.doc(hit.memory.id)?.times;
    if (times && times.length > 0) hit.times = times.map((time) => ({ ...time }));
  }
  // Its session's place and span, for formatContext's grouping (`groupBy: 'session'`).
  if (out.some((hit) => hit.memory.sessionId !== null)) {
    const sessions = orderedSessions(ctx.index.sessions(userId), Infinity);
    const place = new Map(sessions.map((s, i) => [s.id, { id: s.id, number: i + 1, first: s.first, last: s.last }]));
    for (const hit of out) {
      const session = hit.memory.sessionId === null ? undefined : place.get(hit.memory.sessionId);
      if (session) hit.session = { ...session };
    }
  }
  // Accesses that earlier recalls recorded and whose write is still pending show in the records (recall/access-times.ts).
  for (const hit of out) access.shown(hit.memory);
  // An aborted recall rejects (recall's caller races the signal) and touches nothing.
  if (options.touch !== false && !caller?.aborted) access.record(out.map((h) => h.memory));
  return out;
}

/**
 * The k best by score: the index's top k, turns carried by the turns before them (turn-context.ts) and sessions capped
 * (`maxPerSession`: session-cap.ts).
 */
async function ranked(ctx: EngineContext, userId: string, text: { vector: Float32Array; text: string }, filter: DocFilter, ranking: Ranking, k: number, cap: number | undefined, now: number): Promise<RecallHit[]> {
  // How far above its own score a turn carried from a memory outside the fetched hits can end (turn-context.ts).
  const carry = ctx.index.hasTurns(userId) ? carryFactor(ranking) : 0;
  let out: RecallHit[] = [];
  // The best `fetch` are ranked (turns carried, sessions capped), and `fetch` grows until the k kept are certain:
  // every memory not fetched scores at most the last fetched one, and a turn it carries at most `carry` times that.
  let fetch = cap !== undefined ? k * CAP_FETCH_FACTOR : carry < 1 ? k : 2 * k;
  for (; ; fetch = Math.min(fetch * CAP_FETCH_FACTOR, MAX_FETCH)) {
    const hits = ctx.index.search(userId, text, { k: fetch, ...filter, ranking, now });
    const records = await readHits(ctx, hits);
    // A record deleted by another tab since the index saw it is simply skipped.
    let ranked: RecallHit[] = hits.flatMap((hit, i) => (records[i] ? [{ memory: records[i]!, score: hit.score, parts: hit.parts }] : []));
    // Turns can be ranked by the turns before them in their session (turn-context.ts).
    if (ranked.some((hit) => hit.memory.type === 'turn')) ranked = await carryToFollowingTurns(ctx, userId, text, ranked, filter, fetch, ranking, now, cap === undefined ? { k, carry } : undefined);
    out = cap === undefined ? ranked.slice(0, k) : capPerSession(ranked, cap, k);
    const everything = hits.length < fetch;
    // Uncapped, `out` holds the k best of a superset of the hits, so a memory not fetched (after the last hit in score
    // then id order) is after them too, and only a carried score can pass them; capped, a held-back hit leaves the
    // last places to memories that may tie the last hit, so those must be strictly above it.
    const last = hits[hits.length - 1]?.score ?? 0;
    const certain = out.length === k && out[k - 1]!.score > last * (cap === undefined ? carry : Math.max(1, carry));
    if (everything || certain || fetch === MAX_FETCH) return out;
  }
}

/**
 * recall's `sessionId` and `sessions` as one set of session ids (both must hold), or undefined when neither is given.
 * Places count the user's sessions begun by now, ordered by their first memory's time.
 */
function sessionFilter(ctx: EngineContext, userId: string, options: RecallOptions, now: number): ReadonlySet<string> | undefined {
  const { sessionId, sessions } = options;
  if (sessionId === undefined && sessions === undefined) return undefined;
  let ids: Set<string> | undefined = sessionId === undefined ? undefined : new Set(Array.isArray(sessionId) ? sessionId : [sessionId]);
  if (sessions) {
    const ordered = orderedSessions(ctx.index.sessions(userId), now);
    const at = (place: number) => (place > 0 ? place - 1 : ordered.length + place);
    const picked = ordered.slice(Math.max(0, at(sessions.from ?? 1)), Math.max(0, at(sessions.to ?? -1) + 1)).map((s) => s.id);
    ids = new Set(ids ? picked.filter((id) => ids!.has(id)) : picked);
  }
  return ids;
}

/** How much further than k a capped recall looks at first, and how much further each time the k kept are not yet certain. */
const CAP_FETCH_FACTOR = 4;
/** The most memories a recall ranks (one read of their records): past that it keeps what it found. */
const MAX_FETCH = 4_000;

/**
 * The most a turn carried from memory m can score, as a multiple of m's own
 * score: `previousTurnWeight` × the turn's own boosts, which the carried
 * score is multiplied by (the time boost of a question about time, a
 * named speaker's). m's own boosts are divided out first, so they only
 * lower it; a time window of the query is part of m's score and travels
 * with it unchanged (turn-context.ts).
 */
function carryFactor(ranking: Ranking): number {
  const time = ranking.timeBoost > 0 ? 1 + ranking.timeBoost : 1;
  const speaker = ranking.speakerBoost > 0 && ranking.namedSpeakers.size > 0 ? 1 + ranking.speakerBoost : 1;
  return ranking.previousTurnWeight * time * speaker;
}
