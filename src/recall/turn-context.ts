import type { EngineContext } from '../engine-context.js';
import { nextInSession } from '../memories/turns/next-in-session.js';
import type { MemoryRecord } from '../schema/memory-record.js';
import type { Turn } from '../schema/turn.js';
import type { DocFilter } from '../search/filters.js';
import type { Ranking, ScoreParts } from '../search/ranking.js';

/** A recall candidate: the memory and its score. */
export interface Ranked {
  memory: MemoryRecord;
  score: number;
  parts: ScoreParts;
  /** For a turn ranked by the turn before it: that turn (the question it answers). */
  answers?: Turn;
}

/** How far past a turn (in `seq`) its session's next turn is looked for: other sessions' turns may sit in between. */
const SESSION_GAP = 16;

/** How many turns a score carries forward: the turn after a hit, and the one after that (a deeper carry found no more answers on LoCoMo dev). */
const CARRY_DEPTH = 2;

/**
 * Context windows for turns: a turn scores at least `previousTurnWeight` ×
 * the score of the turn just before it in its session, so a short answer
 * ("tuna, mostly") that shares no words with the question is found through
 * the question it answers. The rule applies along the session: the turn
 * after a hit, and the one after that. Those turns are read (one read
 * transaction per step, a bounded `[userId+seq]` range each), scored as
 * themselves by the index (`explain`, which also applies recall's filters),
 * and given the larger of the two scores (`ranking` is the query's own, rankingFor's;
 * a time boost, `parts.timeMatch`, belongs to the turn that says when and a speaker boost, `parts.speakerMatch`, to the
 * named speaker's turn: neither is carried, and the carried score is multiplied by the next turn's own; a time window
 * of the query, `parts.timeWindow`, stays in the carried score: the answer to a question asked then is part of that
 * exchange); `parts.previousTurn` says when the
 * carried score won, and `answers` carries the turn it came from. Returns the best `k`, by score then id.
 *
 * With `wanted` (recall's k and how far a carried score can rise over the
 * score it comes from, `carry`), only turns whose carried score can reach
 * the k best are followed: the k best and their scores are the same, with
 * fewer reads.
 *
 * The weight is chosen on LoCoMo dev by leave-one-conversation-out (npm run
 * bench:locomo prints the recall it gains).
 */
export async function carryToFollowingTurns(
  ctx: EngineContext,
  userId: string,
  query: { vector: Float32Array; text: string },
  candidates: Ranked[],
  filter: DocFilter,
  k: number,
  ranking: Ranking,
  now: number,
  wanted?: { k: number; carry: number },
): Promise<Ranked[]> {
  const weight = ranking.previousTurnWeight;
  const byId = new Map(candidates.map((c) => [c.memory.id, { ...c }]));
  // Only the best `wanted.k` are kept in the end, and they score at least the k-th best own score here: a turn whose
  // carried score cannot reach it (at most `carry` × its own without its own boosts) leaves its next turn as it is.
  const floor = wanted && wanted.k <= candidates.length ? [...candidates].sort((a, b) => b.score - a.score)[wanted.k - 1]!.score : -Infinity;
  const reaches = (c: Ranked) => !wanted || (c.score / ownBoost(c.parts)) * wanted.carry >= floor;
  let frontier = candidates.filter((c): c is Ranked & { memory: Turn } => c.memory.type === 'turn' && reaches(c));
  let changed = false;
  for (let step = 0; step < CARRY_DEPTH && weight > 0 && frontier.length > 0; step++) {
    const following = await nextInSession(ctx.db, frontier.map((c) => c.memory), SESSION_GAP);
    const carried = new Map<string, { turn: Turn; score: number; from: Turn }>();
    frontier.forEach((from, i) => {
      const next = following[i];
      // The time and speaker boosts are the turn's own (its words say when; its speaker was named), so they do not travel.
      const score = (weight * from.score) / ownBoost(from.parts);
      if (next && score > (carried.get(next.id)?.score ?? -Infinity)) carried.set(next.id, { turn: next, score, from: from.memory });
    });
    // Turns not among the candidates are scored as themselves (and must pass recall's filters).
    const unseen = [...carried.keys()].filter((id) => !byId.has(id));
    const own = new Map(ctx.index.explain(userId, query, unseen, { ...filter, ranking, now }).map((h) => [h.id, h]));
    const raised: (Ranked & { memory: Turn })[] = [];
    for (const [id, { turn, score, from }] of carried) {
      const scored = own.get(id);
      const entry = byId.get(id) ?? (scored ? { memory: turn, score: scored.score, parts: scored.parts } : undefined);
      if (!entry) continue;
      byId.set(id, entry);
      const boosted = score * ownBoost(entry.parts);
      if (boosted <= entry.score) continue;
      entry.score = boosted;
      entry.parts = { ...entry.parts, previousTurn: score };
      entry.answers = from;
      raised.push(entry as Ranked & { memory: Turn });
    }
    frontier = raised.filter(reaches);
    changed ||= raised.length > 0;
  }
  // Nothing carried: the index's own order (score, then id) stands.
  if (!changed) return candidates;
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0)).slice(0, k);
}

/** The multipliers a turn's score has for itself alone: its relative times on a question about time, its speaker when named. */
function ownBoost(parts: ScoreParts): number {
  return (parts.timeMatch ?? 1) * (parts.speakerMatch ?? 1);
}
