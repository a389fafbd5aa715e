import { largestF32Below } from './simd/f32-rounding.js';
import { TopK } from './top-k.js';

/**
 * The rows that may be among the k best accepted rows, ascending, given
 * `lo[r] ≤ S[r] ≤ hi[r]` for every row's exact score S[r]; every row returned
 * is accepted, and `accept` is asked only about rows that could still win.
 *
 * Why no row of the top k is lost: let B be the k-th largest `lo` among the
 * accepted rows seen so far (−∞ while fewer than k); B only rises. Those k
 * accepted rows have S ≥ lo ≥ B. A row with hi < B has S ≤ hi < B, so k
 * accepted rows beat it strictly: it is not among the k best under any
 * tie-break. Hence skipping a row whose hi is below B when it is reached, and
 * dropping at the end the kept rows whose hi is below the final B, drops only
 * rows outside the top k; rows that `accept` rejects are outside it too. So
 * the result contains the k best accepted rows (all accepted rows when fewer
 * than k), and the k best of it under a total order are the k best overall.
 *
 * With `above` (a kernel giving, ascending, the rows whose hi is above a
 * threshold), JS walks only the first rows, until it has seen PREFIX_ROWS and
 * B is finite; the kernel then hands it the later rows whose hi is at least
 * that B (above the largest f32 below it), and the walk goes on over those
 * alone: a row the kernel leaves out has hi below a B the walk over every
 * row would have reached by then, so that walk skips it too; the rows
 * visited, the bar and the rows returned are the same, and JS does not
 * walk every row's bound on every query.
 */
export function cosineCandidates(lo: Float32Array, hi: Float32Array, k: number, accept?: (row: number) => boolean, above?: (threshold: number) => ArrayLike<number>): { rows: number[]; walked: number } {
  const n = lo.length;
  const best = new TopK(Math.min(k, n));
  const kept: number[] = [];
  let bar = -Infinity;
  const visit = (row: number) => {
    if (hi[row]! < bar) return;
    if (accept && !accept(row)) return;
    kept.push(row);
    if (best.wouldAccept(lo[row]!, row)) {
      best.push(row, lo[row]!);
      bar = best.floor();
    }
  };
  let row = 0;
  const jsAlone = !above || n < 2 * PREFIX_ROWS;
  for (; row < n && (jsAlone || row < PREFIX_ROWS || bar === -Infinity); row++) visit(row);
  let walked = row;
  if (row < n) {
    const later = above!(largestF32Below(bar));
    const from = firstAtLeast(later, row);
    for (let i = from; i < later.length; i++) visit(later[i]!);
    walked += later.length - from;
  }
  let m = 0;
  for (const row of kept) if (hi[row]! >= bar) kept[m++] = row;
  kept.length = m;
  return { rows: kept, walked };
}

/**
 * The rows `cosineCandidates` walks in JS before the kernel hands it the rest: their
 * k-th best lower bound is the kernel's threshold. For rows in no particular
 * order, about n·k / PREFIX_ROWS rows pass it (500 at 100k, k 10).
 */
const PREFIX_ROWS = 2_048;

/** The first index of ascending `rows` whose value is at least `row`. */
function firstAtLeast(rows: ArrayLike<number>, row: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows[middle]! < row) low = middle + 1;
    else high = middle;
  }
  return low;
}
