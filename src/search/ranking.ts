import type { MemoryType } from '../schema/common.js';
import type { RankingOptions } from '../schema/ranking-options.js';
import type { TimeWindows, WindowMatch } from './time-windows.js';

export type { RankingOptions };


export interface Ranking {
  weights: { similarity: number; importance: number; recency: number; pinned: number };
  /** A constant in every score, inside what the multipliers act on (`boostFloor`). */
  boostFloor: number;
  halfLifeMs: number;
  sourceWeights: Record<MemoryType | 'task', number>;
  denseWeight: number;
  /** A turn scores at least this share of the score of the turn just before it in its session (recall/turn-context.ts). */
  previousTurnWeight: number;
  /** The configured multiplier a dated memory gets when a query asks about time (`timeQuestionBoost`). */
  timeQuestionBoost: number;
  /** The boost this search applies to dated memories: `timeQuestionBoost` when the query asks about time (rankingFor), else 0. */
  timeBoost: number;
  /** The configured multiplier a turn gets when the query names its speaker (`speakerBoost`). */
  speakerBoost: number;
  /** The speakers this query names (search/named-speakers.ts): their turns are multiplied by 1 + `speakerBoost`. */
  namedSpeakers: ReadonlySet<string>;
  /** The configured multiplier of a memory inside a time window the query names, less 1 (`timeWindowBoost`). */
  timeWindowBoost: number;
  /** The windows this query names, when they rank (recall's `time: 'boost'`): a memory in one is multiplied by 1 + `timeWindowBoost`. */
  windows: TimeWindows | undefined;
}

const NO_SPEAKERS: ReadonlySet<string> = new Set();

const DAY_MS = 86_400_000;

export function resolveRanking(options: RankingOptions = {}): Ranking {
  return {
    weights: { similarity: 1, importance: 0.05, recency: 0.05, pinned: 0.1, ...options.weights },
    boostFloor: options.boostFloor ?? BOOST_FLOOR,
    halfLifeMs: (options.halfLifeDays ?? 30) * DAY_MS,
    sourceWeights: { episode: 1, fact: 1, turn: 1, task: 1, ...options.sourceWeights },
    denseWeight: options.denseWeight ?? 0.4,
    previousTurnWeight: options.previousTurnWeight ?? 0.85,
    timeQuestionBoost: options.timeQuestionBoost ?? 0.3,
    timeBoost: 0,
    speakerBoost: options.speakerBoost ?? SPEAKER_BOOST,
    namedSpeakers: NO_SPEAKERS,
    timeWindowBoost: options.timeWindowBoost ?? TIME_WINDOW_BOOST,
    windows: undefined,
  };
}

/** The default `timeWindowBoost` (chosen on LoCoMo dev by leave-one-conversation-out, and on bench:time: bench/locomo.ts, bench/time.ts). */
const TIME_WINDOW_BOOST = 3;

/** The default `boostFloor` (chosen on LoCoMo dev by leave-one-conversation-out: bench/locomo.ts). */
const BOOST_FLOOR = 0.1;

/** The default `speakerBoost` (chosen on LoCoMo dev by leave-one-conversation-out: bench/locomo.ts). */
const SPEAKER_BOOST = 0.2;

/**
 * The ranking of one query: dated memories are boosted when it asks about
 * time, the turns of the speakers it names (search/named-speakers.ts), and
 * the memories inside the time windows it names (recall/query-times.ts).
 */
export function rankingFor(ranking: Ranking, query: string, namedSpeakers: readonly string[] = [], windows?: TimeWindows): Ranking {
  const timeBoost = ranking.timeQuestionBoost > 0 && asksAboutTime(query) ? ranking.timeQuestionBoost : 0;
  const named = ranking.speakerBoost > 0 && namedSpeakers.length > 0 ? new Set(namedSpeakers) : NO_SPEAKERS;
  const ranked = ranking.timeWindowBoost > 0 && windows && windows.windows.length > 0 ? windows : undefined;
  return timeBoost === ranking.timeBoost && named === ranking.namedSpeakers && ranked === ranking.windows ? ranking : { ...ranking, timeBoost, namedSpeakers: named, windows: ranked };
}

/**
 * Whether a query asks about time: "when…", "how long ago…", "what
 * year/month/date/day/time…", "which year…". English only, as the
 * relative times it is matched with (time/time-mentions.ts).
 */
export function asksAboutTime(query: string): boolean {
  return TIME_QUESTION.test(query);
}
const TIME_QUESTION = /\bwhen\b|\bhow long\b|\b(what|which) (year|month|date|day|week|time)\b/i;

/**
 * The multiplier of a memory's score for its type, on a question about
 * time for giving a relative time, for being said by a speaker the
 * query names (`named`: the caller checked its speaker against
 * `ranking.namedSpeakers`), and for lying in a time window the query names
 * (`windowed`: the caller matched it against `ranking.windows`): the one
 * expression `scoreOf` and the search's bounds (score-bounds.ts) both use,
 * so they agree bit for bit.
 */
export function sourceOf(ranking: Ranking, kind: MemoryType | 'task', dated: boolean, named: boolean, windowed = false): number {
  const source = ranking.sourceWeights[kind];
  const timed = dated && ranking.timeBoost > 0 ? source * (1 + ranking.timeBoost) : source;
  const spoken = named && ranking.speakerBoost > 0 ? timed * (1 + ranking.speakerBoost) : timed;
  return windowed && ranking.windows !== undefined ? spoken * (1 + ranking.timeWindowBoost) : spoken;
}

/** Whether a memory's speaker is one the query names (its score is multiplied by 1 + speakerBoost). */
export function namedBy(ranking: Ranking, speaker: string | undefined): boolean {
  return speaker !== undefined && ranking.speakerBoost > 0 && ranking.namedSpeakers.has(speaker);
}

/**
 * Whether the score orders memories exactly as their cosine does: no keyword
 * share, no boosts, the same multiplier for every type. Then the k best by
 * cosine are the k best (MemoryIndex.search takes the dense top k + 1 to see
 * whether a tie at the k-th score leaves the order to the ids).
 */
export function ordersByCosineAlone(ranking: Ranking): boolean {
  const { weights: w, sourceWeights: s } = ranking;
  return ranking.denseWeight === 1 && ranking.timeBoost === 0 && (ranking.speakerBoost === 0 || ranking.namedSpeakers.size === 0) && ranking.windows === undefined && w.importance === 0 && w.recency === 0 && w.pinned === 0 && s.episode === s.fact && s.fact === s.task && s.task === s.turn;
}

/** Every part of a hit's score, so apps and the inspector can show why it ranked. */
export interface ScoreParts {
  /** Cosine similarity between query and memory embeddings. */
  similarity: number;
  /** BM25 keyword score normalised to the query's best match (0 when no term matched). */
  keyword: number;
  /** The dense + keyword fusion the other parts are added to. */
  relevance: number;
  /** 0.5^(age / halfLife), age since the memory's own time (`createdAt`) or the last recall that returned it, whichever is later (search/index-doc.ts `recencyClockOf`). */
  recency: number;
  importance: number;
  /** 1 when pinned, else 0. */
  pinned: number;
  /** The per-type multiplier. */
  source: number;
  /**
   * Present when the query asks about time and the memory gives a relative
   * time ("last week"): the multiplier that gave it, 1 + `timeQuestionBoost`
   * (the score is source × this × the rest).
   */
  timeMatch?: number;
  /**
   * Present on a turn whose speaker the query names ("what did Caroline…"):
   * the multiplier that gave it, 1 + `speakerBoost`.
   */
  speakerMatch?: number;
  /**
   * Present on a turn ranked by the turn just before it in its session (the
   * question it answers): `previousTurnWeight` × that turn's score (without
   * its own `timeMatch` and `speakerMatch`), which is then this hit's score,
   * times this hit's own `timeMatch` and `speakerMatch` when present (its own
   * parts score less).
   */
  previousTurn?: number;
  /**
   * Present when the query names a time ("on May 8th", "last week", "this
   * morning") or sessions ("our first conversation") and the memory is in
   * that window: the words that named it, the window (epoch ms, `to`
   * exclusive; for sessions their first and last memory's time), what put
   * the memory in it (its own time `createdAt`, a time its text gives,
   * `mention`, or its `session`), and the multiplier it gave:
   * 1 + `timeWindowBoost` when windows rank (`time: 'boost'`), 1 when they
   * filter. Unlike `timeMatch` and `speakerMatch`, it stays in a score
   * carried to the next turn (`previousTurn`): the answer to a question
   * asked in the window is part of that exchange.
   */
  timeWindow?: { text: string; from: number; to: number; by: 'createdAt' | 'mention' | 'session'; multiplier: number };
}

export function scoreOf(
  ranking: Ranking,
  signal: { kind: MemoryType | 'task'; cosine: number; keyword: number; importance: number; pinned: boolean; dated: boolean; named: boolean; touchedAt: number; window?: WindowMatch; filterWindows?: TimeWindows },
  now: number,
): { score: number; parts: ScoreParts } {
  const relevance = relevanceOf(ranking, signal.cosine, signal.keyword);
  const recency = recencyOf(ranking, signal.touchedAt, now);
  const pinned = signal.pinned ? 1 : 0;
  const multiplier = sourceOf(ranking, signal.kind, signal.dated, signal.named, signal.window !== undefined);
  const score = combine(ranking, multiplier, signal.cosine, signal.keyword, signal.importance, recency, pinned);
  const parts: ScoreParts = { similarity: signal.cosine, keyword: signal.keyword, relevance, recency, importance: signal.importance, pinned, source: ranking.sourceWeights[signal.kind] };
  if (signal.dated && ranking.timeBoost > 0) parts.timeMatch = 1 + ranking.timeBoost;
  if (signal.named && ranking.speakerBoost > 0) parts.speakerMatch = 1 + ranking.speakerBoost;
  const windows = ranking.windows ?? signal.filterWindows;
  if (signal.window && windows) {
    const { text, from, to } = windows.windows[signal.window.window]!;
    parts.timeWindow = { text, from, to, by: signal.window.by, multiplier: ranking.windows ? 1 + ranking.timeWindowBoost : 1 };
  }
  return { score, parts };
}

/** 0.5^(age / halfLife), age since `touchedAt` (0 for a time ahead of `now`). */
export function recencyOf(ranking: Ranking, touchedAt: number, now: number): number {
  return Math.pow(0.5, Math.max(0, now - touchedAt) / ranking.halfLifeMs);
}

function relevanceOf(ranking: Ranking, cosine: number, keyword: number): number {
  return ranking.denseWeight * Math.max(0, cosine) + (1 - ranking.denseWeight) * keyword;
}

/**
 * The score from its parts: the one expression both `scoreOf` and the search's
 * bounds (score-bounds.ts) evaluate. With every weight, multiplier and part
 * at least 0, each operation in it (sums, products by a non-negative factor,
 * max with 0) is non-decreasing in each of cosine, keyword, importance,
 * recency, pinned and source, and so is its floating-point evaluation
 * (rounding is monotone). So evaluating it on upper (lower) bounds of the
 * parts gives an upper (lower) bound of the score `scoreOf` computes, bit for bit.
 * `source` is the row's whole multiplier (`sourceOf`: type, time on a
 * question about time, and a named speaker). `boostFloor` is a constant
 * inside it, so a multiplier of 1 + b lifts every memory by at least
 * b × boostFloor, and a score carried to the next turn keeps that share,
 * whatever the relevance: a boost is then part ratio, part step, and a
 * weak match is not multiplied down to nothing.
 */
export function combine(ranking: Ranking, source: number, cosine: number, keyword: number, importance: number, recency: number, pinned: number): number {
  const w = ranking.weights;
  return source * (w.similarity * relevanceOf(ranking, cosine, keyword) + ranking.boostFloor + w.importance * importance + w.recency * recency + w.pinned * pinned);
}
