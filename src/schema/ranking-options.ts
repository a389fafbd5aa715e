import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/**
 * How recall turns its signals into one score:
 *
 *   relevance = denseWeight · max(0, cosine) + (1 − denseWeight) · keyword
 *   score     = source[type] · time · speaker · window · ( w.similarity · relevance
 *                                         + boostFloor
 *                                         + w.importance · importance
 *                                         + w.recency    · 0.5^(age / halfLife)
 *                                         + w.pinned     · pinned )
 *
 * where `time` is 1 + timeQuestionBoost for a memory that gives a relative
 * time when the query asks about time, else 1, and `speaker` is
 * 1 + speakerBoost for a turn whose speaker the query names, else 1, and
 * `window` is 1 + timeWindowBoost for a memory inside a time window the
 * query names, else 1.
 *
 * `keyword` is the BM25 score divided by the best BM25 score for the query
 * among the memories that pass recall's filters (not among some candidate
 * pool, so it does not depend on k), and both signals live in [0, 1]. Defaults were chosen on LoCoMo (see
 * bench/locomo.ts): relevance dominates; importance, recency and pins break
 * near-ties.
 */
/** A per-type multiplier: finite and bounded, as every ranking number is (zod's numbers are finite already). */
const multiplier = z.number().check(z.gte(0), z.lte(100));

/** The scoring itself is search/ranking.ts. */
export const rankingOptionsSchema = lazySchema(() => z.strictObject({
  weights: z.optional(z.partial(z.strictObject({
    similarity: z.number().check(z.gte(0), z.lte(100)),
    importance: z.number().check(z.gte(0), z.lte(100)),
    recency: z.number().check(z.gte(0), z.lte(100)),
    pinned: z.number().check(z.gte(0), z.lte(100)),
  }))),
  /**
   * A constant inside every score, which the multipliers (type, time,
   * speaker, window) act on with the rest: a boost of 1 + b lifts a memory
   * by at least b × this, whatever its relevance, and a turn carried by
   * `previousTurnWeight` keeps its share. Default 0.1 (chosen on LoCoMo dev
   * by leave-one-conversation-out: see bench/locomo.ts); 0 makes every
   * boost a pure ratio of relevance and the small weights.
   */
  boostFloor: z.optional(z.number().check(z.gte(0), z.lte(100))),
  /** Half-life of the recency signal, in days (at least a thousandth of a day, about 86 s). */
  halfLifeDays: z.optional(z.number().check(z.gte(0.001), z.lte(100_000))),
  /**
   * Multiplier per memory type (all equal by default), from 0 to 100: every
   * range here is bounded so that no score can overflow to Infinity.
   */
  sourceWeights: z.optional(z.partial(z.strictObject({ episode: multiplier, fact: multiplier, turn: multiplier }))),
  /** Share of the dense (embedding) signal in relevance; the rest is keyword BM25. */
  denseWeight: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /**
   * A turn scores at least this share of the score of the turn just before it
   * in its session, so a short answer ("tuna, mostly") is found by the
   * question it answers. Default 0.85 (chosen on LoCoMo dev by
   * leave-one-conversation-out: see bench/locomo.ts); 0 turns it off.
   */
  previousTurnWeight: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /**
   * When a query asks about time ("when did…", "how long ago…", "what
   * year…"), a memory whose text gives a time relative to when it was
   * written ("yesterday", "last week", "two years ago") scores (1 + this)
   * times as much: the answer to "when?" is usually the memory that says
   * when. Default 0.3 (chosen on LoCoMo dev by leave-one-conversation-out:
   * see bench/locomo.ts); 0 turns it off. English questions only.
   */
  timeQuestionBoost: z.optional(z.number().check(z.gte(0), z.lte(10))),
  /**
   * When a query names the speaker of a turn ("what did Caroline paint?"),
   * that turn scores (1 + this) times as much, and the name is left out of
   * the words the query is matched by: a speaker is a field of a turn, not
   * text every one of their turns repeats. Default 0.2 (chosen on LoCoMo dev
   * by leave-one-conversation-out: see bench/locomo.ts); 0 turns both off
   * (the query is matched with the names in it, and no turn is boosted).
   */
  speakerBoost: z.optional(z.number().check(z.gte(0), z.lte(10))),
  /**
   * When a query names a time ("on May 8th", "last week", "this morning")
   * or sessions ("our first conversation"), a memory inside that window
   * (by its own time, a time its text gives, or its session) scores
   * (1 + this) times as much, so the window's memories rank first unless
   * one outside matches far better (recall's `time: 'filter'` keeps only
   * them). Default 3 (chosen on LoCoMo dev by leave-one-conversation-out,
   * and on bench:time: see bench/locomo.ts and bench/time.ts); 0 turns the boost off (the time words still leave the
   * query's words).
   */
  timeWindowBoost: z.optional(z.number().check(z.gte(0), z.lte(100))),
}));
/**
 * `createMemory({ ranking })`: the weights of the recall score (see the formula on `rankingOptionsSchema` in the source, and docs/ranking.md).
 * @interface
 */
export type RankingOptions = z.input<typeof rankingOptionsSchema>;
