import type { QueuedSegment } from './keyword-query.js';

/*
 * BM25+ scoring of a keyword query, on typed arrays: one formula, a table
 * for the common once-held term, and an accumulator of rows that the built
 * postings and the queued ones add into alike.
 */

/** BM25+ parameters (as MiniSearch uses them): term saturation, length normalisation, lower bound per matched term. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/**
 * Document lengths (in tokens) whose once-held term scores a query works out
 * per term rather than per posting: nearly every posting of a query holds
 * its term once in a document of a few dozen tokens, so scoring one is a
 * table look-up, not a division.
 */
export const WEIGHTED_LENGTHS = 256;

/** BM25+ of a term `tf` times in a document of `length` tokens: the one formula every score comes from, bit for bit. */
function termScore(tf: number, length: number, idf: number, avgLength: number): number {
  const norm = tf + K1 * (1 - B + (B * length) / avgLength);
  return idf * ((tf * (K1 + 1)) / norm + DELTA);
}

/** Fills `weights[length]` with the score of a term held once in a document of `length` tokens (`termScore`'s value, not an approximation); returns `weights`. */
export function fillWeights(weights: Float64Array, idf: number, avgLength: number): Float64Array {
  for (let length = 0; length < weights.length; length++) weights[length] = termScore(1, length, idf, avgLength);
  return weights;
}

/** No table: every posting is scored by `termScore`. */
export const NO_WEIGHTS = new Float64Array(0);

/**
 * Adds a term's score in one row to the accumulator, noting the row the
 * first time it scores (every score is positive, so a row leaves 0 for
 * good: `touched` has room for every row, which the caller makes sure of).
 * Returns the rows noted so far.
 */
export function scoreRow(acc: Float32Array, touched: Int32Array, count: number, row: number, tf: number, length: number, weights: Float64Array, idf: number, avgLength: number): number {
  if (acc[row] === 0) touched[count++] = row;
  // Lengths are token counts: whole numbers. A length past the table (or no table) is scored by the formula.
  acc[row]! += tf === 1 && length < weights.length ? weights[length]! : termScore(tf, length, idf, avgLength);
  return count;
}

/** `scoreRow` for a built term's first `n` postings, none skipped. */
export function scoreBuilt(acc: Float32Array, touched: Int32Array, count: number, rows: Int32Array, freqs: Uint16Array | undefined, n: number, lengths: Float32Array, weights: Float64Array, idf: number, avgLength: number): number {
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const length = lengths[row]!;
    const tf = freqs === undefined ? 1 : freqs[i]!;
    if (acc[row] === 0) touched[count++] = row;
    acc[row]! += tf === 1 && length < weights.length ? weights[length]! : termScore(tf, length, idf, avgLength);
  }
  return count;
}

/** `scoreRow` for a queued segment's documents (those its flags count), each the row `base` + itself. */
export function scoreQueued(acc: Float32Array, touched: Int32Array, count: number, segment: QueuedSegment, base: number, weights: Float64Array, idf: number, avgLength: number): number {
  const { docs, freqs, begin, end, lengths, flags, flagsFrom } = segment;
  for (let k = begin; k < end; k++) {
    const doc = docs[k]!;
    if (flags !== null && flags[doc - flagsFrom] === 0) continue;
    const row = base + doc;
    const length = lengths[doc]!;
    const tf = freqs[k]!;
    if (acc[row] === 0) touched[count++] = row;
    acc[row]! += tf === 1 && length < weights.length ? weights[length]! : termScore(tf, length, idf, avgLength);
  }
  return count;
}

/*
 * The loops over every row a query scored (every matching row: many in a
 * large store) are functions of their own, as the scoring loops above are:
 * V8 optimises a small function within a query or two, where a loop inside
 * \`query\` ran unoptimised for the first few recalls after an open.
 */

/** Sets the first `count` rows of `rows` back to 0 in `scores`: all of them at once when they are many (a native fill). */
export function clearRows(scores: Float32Array, rows: Int32Array, count: number): void {
  if (count * 8 > scores.length) scores.fill(0);
  else for (let i = 0; i < count; i++) scores[rows[i]!] = 0;
}

/** Visits each of `rows` whose score is above `above`, in order. */
export function visitAbove(rows: Int32Array, scores: Float32Array, above: number, visit: (row: number, score: number) => void): void {
  for (let i = 0; i < rows.length; i++) {
    const score = scores[rows[i]!]!;
    if (score > above) visit(rows[i]!, score);
  }
}

/** A token no queued document holds. */
export const NO_SEGMENTS: readonly QueuedSegment[] = [];

/** The `limit` best rows among `rows` by `scores`, best first. */
export function topRows(rows: Int32Array, scores: Float32Array, limit: number, accept: (row: number) => boolean): { row: number; score: number }[] {
  if (rows.length <= limit * 4) {
    return Array.from(rows)
      .filter((row) => accept(row))
      .map((row) => ({ row, score: scores[row]! }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
  // Many matches: keep a small sorted buffer instead of sorting them all.
  const best: { row: number; score: number }[] = [];
  let floor = -Infinity;
  // An indexed loop: it runs once per matching row, and the first queries after an open run it unoptimised,
  // where a typed array's iterator costs several times as much.
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const score = scores[row]!;
    if (best.length >= limit && score <= floor) continue;
    if (!accept(row)) continue;
    const hit = { row, score };
    let i = best.length;
    best.push(hit);
    while (i > 0 && best[i - 1]!.score < score) {
      best[i] = best[i - 1]!;
      i--;
    }
    best[i] = hit;
    if (best.length > limit) best.pop();
    if (best.length >= limit) floor = best[best.length - 1]!.score;
  }
  return best;
}
