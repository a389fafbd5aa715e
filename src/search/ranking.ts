import type { MemoryType } from '../schema/common.js';
import type { RankingOptions } from '../schema/ranking-options.js';

export type { RankingOptions };


export interface Ranking {
  weights: { similarity: number; importance: number; recency: number; pinned: number };
  halfLifeMs: number;
  sourceWeights: Record<MemoryType | 'task', number>;
  denseWeight: number;
  /** A turn scores at least this share of the score of the turn just before it in its session (recall/turn-context.ts). */
  previousTurnWeight: number;
}

const DAY_MS = 86_400_000;

export function resolveRanking(options: RankingOptions = {}): Ranking {
  return {
    weights: { similarity: 1, importance: 0.05, recency: 0.05, pinned: 0.1, ...options.weights },
    halfLifeMs: (options.halfLifeDays ?? 30) * DAY_MS,
    sourceWeights: { episode: 1, fact: 1, turn: 1, task: 1, ...options.sourceWeights },
    denseWeight: options.denseWeight ?? 0.4,
    previousTurnWeight: options.previousTurnWeight ?? 0.85,
  };
}

/**
 * Whether the score orders memories exactly as their cosine does: no keyword
 * share, no boosts, the same multiplier for every type. Then the k best by
 * cosine are the k best (MemoryIndex.search takes the dense top k + 1 to see
 * whether a tie at the k-th score leaves the order to the ids).
 */
export function ordersByCosineAlone(ranking: Ranking): boolean {
  const { weights: w, sourceWeights: s } = ranking;
  return ranking.denseWeight === 1 && w.importance === 0 && w.recency === 0 && w.pinned === 0 && s.episode === s.fact && s.fact === s.task && s.task === s.turn;
}

/** Every part of a hit's score, so apps and the inspector can show why it ranked. */
export interface ScoreParts {
  /** Cosine similarity between query and memory embeddings. */
  similarity: number;
  /** BM25 keyword score normalised to the query's best match (0 when no term matched). */
  keyword: number;
  /** The dense + keyword fusion the other parts are added to. */
  relevance: number;
  /** 0.5^(age / halfLife), age since last update or access. */
  recency: number;
  importance: number;
  /** 1 when pinned, else 0. */
  pinned: number;
  /** The per-type multiplier. */
  source: number;
  /**
   * Present on a turn ranked by the turn just before it in its session (the
   * question it answers): `previousTurnWeight` × that turn's score, which is
   * then this hit's score (its own parts score less).
   */
  previousTurn?: number;
}

export function scoreOf(
  ranking: Ranking,
  signal: { kind: MemoryType | 'task'; cosine: number; keyword: number; importance: number; pinned: boolean; touchedAt: number },
  now: number,
): { score: number; parts: ScoreParts } {
  const relevance = relevanceOf(ranking, signal.cosine, signal.keyword);
  const recency = recencyOf(ranking, signal.touchedAt, now);
  const pinned = signal.pinned ? 1 : 0;
  const source = ranking.sourceWeights[signal.kind];
  const score = combine(ranking, source, signal.cosine, signal.keyword, signal.importance, recency, pinned);
  return {
    score,
    parts: { similarity: signal.cosine, keyword: signal.keyword, relevance, recency, importance: signal.importance, pinned, source },
  };
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
 */
export function combine(ranking: Ranking, source: number, cosine: number, keyword: number, importance: number, recency: number, pinned: number): number {
  const w = ranking.weights;
  return source * (w.similarity * relevanceOf(ranking, cosine, keyword) + w.importance * importance + w.recency * recency + w.pinned * pinned);
}
