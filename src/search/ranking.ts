import { z } from 'zod';
import type { MemoryType } from '../schema/common.js';

/**
 * How recall turns its signals into one score:
 *
 *   relevance = denseWeight · max(0, cosine) + (1 − denseWeight) · keyword
 *   score     = source[type] · ( w.similarity · relevance
 *                               + w.importance · importance
 *                               + w.recency    · 0.5^(age / halfLife)
 *                               + w.pinned     · pinned )
 *
 * `keyword` is the BM25 score divided by the best BM25 score for the query,
 * so both signals live in [0, 1]. Defaults were chosen on LoCoMo (see
 * bench/locomo.ts): relevance dominates; importance, recency and pins break
 * near-ties.
 */
export const rankingOptionsSchema = z
  .object({
    weights: z
      .object({
        similarity: z.number().min(0).max(100),
        importance: z.number().min(0).max(100),
        recency: z.number().min(0).max(100),
        pinned: z.number().min(0).max(100),
      })
      .partial()
      .strict()
      .optional(),
    /** Half-life of the recency signal, in days. */
    halfLifeDays: z.number().positive().max(100_000).optional(),
    /** Multiplier per memory type (facts and episodes equal by default). */
    sourceWeights: z.object({ episode: z.number().min(0), fact: z.number().min(0) }).partial().strict().optional(),
    /** Share of the dense (embedding) signal in relevance; the rest is keyword BM25. */
    denseWeight: z.number().min(0).max(1).optional(),
  })
  .strict();
export type RankingOptions = z.input<typeof rankingOptionsSchema>;

export interface Ranking {
  weights: { similarity: number; importance: number; recency: number; pinned: number };
  halfLifeMs: number;
  sourceWeights: Record<MemoryType | 'task', number>;
  denseWeight: number;
}

const DAY_MS = 86_400_000;

export function resolveRanking(options: RankingOptions = {}): Ranking {
  return {
    weights: { similarity: 1, importance: 0.05, recency: 0.05, pinned: 0.1, ...options.weights },
    halfLifeMs: (options.halfLifeDays ?? 30) * DAY_MS,
    sourceWeights: { episode: 1, fact: 1, task: 1, ...options.sourceWeights },
    denseWeight: options.denseWeight ?? 0.4,
  };
}

/**
 * Whether the score orders memories exactly as their cosine does: no keyword
 * share, no boosts, the same multiplier for every type. Then the k best by
 * cosine are the k best, and recall needs no wider candidate pool.
 */
export function ordersByCosineAlone(ranking: Ranking): boolean {
  const { weights: w, sourceWeights: s } = ranking;
  return ranking.denseWeight === 1 && w.importance === 0 && w.recency === 0 && w.pinned === 0 && s.episode === s.fact && s.fact === s.task;
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
}

export function scoreOf(
  ranking: Ranking,
  signal: { kind: MemoryType | 'task'; cosine: number; keyword: number; importance: number; pinned: boolean; touchedAt: number },
  now: number,
): { score: number; parts: ScoreParts } {
  const relevance = ranking.denseWeight * Math.max(0, signal.cosine) + (1 - ranking.denseWeight) * signal.keyword;
  const age = Math.max(0, now - signal.touchedAt);
  const recency = Math.pow(0.5, age / ranking.halfLifeMs);
  const pinned = signal.pinned ? 1 : 0;
  const source = ranking.sourceWeights[signal.kind];
  const w = ranking.weights;
  const score =
    source * (w.similarity * relevance + w.importance * signal.importance + w.recency * recency + w.pinned * pinned);
  return {
    score,
    parts: { similarity: signal.cosine, keyword: signal.keyword, relevance, recency, importance: signal.importance, pinned, source },
  };
}
