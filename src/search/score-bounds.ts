import { combine, recencyOf, sourceOf, type Ranking } from './ranking.js';
import { KINDS_BY_CODE, type RowSignals } from './row-signals.js';
import { TopK } from './top-k.js';

const NO_NAMES: ReadonlySet<string> = new Set();

/** One search over one user's rows, as `candidateRows` needs it. */
export interface BoundedSearch {
  ranking: Ranking;
  now: number;
  k: number;
  /** `lo[r] ≤ cosine ≤ hi[r]` for every row r of the matrix, the cosine being the one the exact score uses (VectorMatrix.scoreBounds). */
  lo: Float32Array;
  hi: Float32Array;
  signals: RowSignals;
  /** With windows that rank (`ranking.windows`): each row's window match, 0 for none (MemoryIndex's window marks). */
  windowed?: Uint16Array;
  /**
   * The rows whose `hi` is not ≤ `threshold`, ascending, and the largest `hi` over every row (VectorMatrix.scoreBounds,
   * from a WebAssembly kernel): the walk over every row's bound then leaves JS only the rows that pass its first floor.
   */
  above?(threshold: number): { rows: ArrayLike<number>; largest: number };
  /** Whether row r passes the search's filters; asked only about rows that could still win. */
  accept: (row: number) => boolean;
  /** The keyword signal, when relevance has a keyword share. */
  keywords?: {
    /** The best accepted matches (up to k), with their normalised keyword score. */
    best: readonly { row: number; keyword: number }[];
    /** The normalised keyword score of a raw BM25 score (the best accepted match's raw score gives 1). */
    normalise(raw: number): number;
    /** The best accepted match's raw score: no accepted match scores more. */
    bestRaw: number;
    /** Visits every matching document (accepted or not) whose raw score is above `above`, with its normalised keyword score. */
    forEach(above: number, visit: (id: string, keyword: number) => void): void;
    row(id: string): number | undefined;
  };
}

/**
 * The rows that may be among the k best accepted rows by the full score
 * (ranking.ts: relevance from cosine and keyword, plus importance, recency
 * and pinned, times the type's multiplier): a superset, each row accepted, in
 * no particular order. The caller scores them exactly and keeps the k best.
 *
 * Each row gets an upper bound H and a lower bound L on its exact score S,
 * by evaluating the score's own expression (`combine`, monotone in every
 * part) on bounds of the parts: the cosine's int8 bounds, the row's exact
 * importance, pinned, type, dated and speaker (RowSignals) and query window (`windowed`), its exact keyword score, and for
 * recency either its exact value or 1 (age ≥ 0). As in VectorMatrix's
 * `candidates`: let B be the k-th largest L among distinct accepted rows put
 * in the heap so far (−∞ before k); those k rows have S ≥ L ≥ B, so a row
 * with H < B has k rows strictly above it and is outside the top k under any
 * tie-break. B only rises, so a row skipped against an earlier B is out too.
 *
 * Three passes, so that neither keyword matches nor the extra parts need a
 * wide candidate pool, and no row's document is built unless it may win:
 *  1. The best keyword matches (exact keyword score) enter the heap: with a
 *     keyword share, they usually set B close to the final k-th score.
 *  2. Every other row, with its keyword score taken as 0. A first H uses
 *     recency 1 (cheap: no power); only rows that pass it get their exact
 *     recency, a tighter H, and then `accept`. With keyword 0, L is still a
 *     lower bound (the score is non-decreasing in the keyword part), so the
 *     heap stays valid; H is an upper bound only for rows that matched no
 *     keyword, which is why:
 *  3. Every keyword match not in pass 1 is bounded with its exact keyword
 *     score: first with the maxima of the other parts (so most matches cost
 *     no lookup), then with its own row's values. These rows do not enter
 *     the heap (their row was already in it with L from pass 2).
 *  A row of the top k is thus kept: a pass-1 row with its true H, a row that
 *  matched no keyword in pass 2, a keyword match in pass 3 (its H ≥ S ≥ B).
 *  Kept rows whose H fell below the final B are dropped at the end.
 * Cheap first tests: in pass 2 a row whose cosine bound is at most `floorOf`
 * of an H that takes the maxima of the other parts is skipped unread; in
 * pass 3 a match whose raw BM25 score is at most such a floor is not
 * visited. H is non-decreasing in the cosine and the keyword score, so these
 * skip only rows whose H is below B.
 */
export function candidateRows(search: BoundedSearch): number[] {
  const { ranking, now, k, lo, hi, accept, keywords } = search;
  const { kind, importance, touchedAt, pinned, dated, speaker } = search.signals;
  const n = lo.length;
  // The multiplier per type, for each of dated, named and windowed (the same as sourceOf gives scoreOf, so bounds and
  // scores agree bit for bit): sources[dated + 2 × named + 4 × windowed][type].
  const sources = [false, true].flatMap((windowed) =>
    [false, true].flatMap((named) => [false, true].map((timed) => Float64Array.from(KINDS_BY_CODE, (name) => sourceOf(ranking, name, timed, named, windowed)))),
  );
  const named = search.signals.speakerMask(ranking.speakerBoost > 0 ? ranking.namedSpeakers : NO_NAMES);
  const anyNamed = named.includes(1);
  const windowed = search.windowed;
  const anyWindowed = windowed !== undefined && windowed.some((mark) => mark !== 0);
  const sourceAt = windowed
    ? (row: number) => sources[dated[row]! + 2 * named[speaker[row]!]! + (windowed[row] !== 0 ? 4 : 0)]![kind[row]!]!
    : (row: number) => sources[dated[row]! + 2 * named[speaker[row]!]!]![kind[row]!]!;
  const heap = new TopK(Math.min(k, n));
  const kept: number[] = [];
  const keptHi: number[] = [];
  let bar = -Infinity;
  const keep = (row: number, top: number, bottom: number | undefined) => {
    kept.push(row);
    keptHi.push(top);
    if (bottom !== undefined && heap.wouldAccept(bottom, row)) {
      heap.push(row, bottom);
      bar = heap.floor();
    }
  };

  // 1. The best keyword matches, exactly bounded.
  const seeds = keywords ? keywords.best.map(({ row }) => row).sort((a, b) => a - b) : [];
  for (const { row, keyword } of keywords?.best ?? []) {
    const s = sourceAt(row);
    const recency = recencyOf(ranking, touchedAt[row]!, now);
    keep(row, combine(ranking, s, hi[row]!, keyword, importance[row]!, recency, pinned[row]!), combine(ranking, s, lo[row]!, keyword, importance[row]!, recency, pinned[row]!));
  }

  // 2. Every other row, keyword taken as 0.
  const { maxImportance, maxPinned, maxDated } = search.signals;
  // The largest multiplier any row can have: dated ones only if a row was ever dated, named ones only if a row's speaker
  // is named, windowed ones only if a row is in a window.
  const maxSource = Math.max(...sources.filter((_, i) => (maxDated || !(i & 1)) && (anyNamed || !(i & 2)) && (anyWindowed || !(i & 4))).flatMap((table) => [...table]));
  const byCosine = (cosine: number) => combine(ranking, maxSource, cosine, 0, maxImportance, 1, maxPinned);
  let floorBar = bar;
  let cosineFloor = floorOf(byCosine, bar);
  let maxCosine = -Infinity;
  let seed = 0;
  let nextSeed = seeds.length > 0 ? seeds[0]! : -1;
  // The rows past the first floor, from a kernel where there is one: the floor only rises, so a row it leaves out
  // would be left out below too. The kernel spares JS a walk over every row's bound, which costs most before the
  // code is optimised (the first recalls after an open). Else every row.
  const passed = search.above?.(cosineFloor);
  const walk = passed ? passed.rows.length : n;
  if (passed) maxCosine = passed.largest;
  for (let i = 0; i < walk; i++) {
    const row = passed ? passed.rows[i]! : i;
    const h = hi[row]!;
    if (!passed && h > maxCosine) maxCosine = h;
    while (nextSeed !== -1 && nextSeed < row) nextSeed = ++seed < seeds.length ? seeds[seed]! : -1;
    if (row === nextSeed) {
      nextSeed = ++seed < seeds.length ? seeds[seed]! : -1;
      continue;
    }
    if (h <= cosineFloor) continue;
    if (bar !== floorBar) {
      // B rose: a higher floor (a floor of an earlier B stays valid, so this needs no exactness in timing).
      floorBar = bar;
      cosineFloor = floorOf(byCosine, bar);
      if (h <= cosineFloor) continue;
    }
    const s = sourceAt(row);
    if (combine(ranking, s, h, 0, importance[row]!, 1, pinned[row]!) < bar) continue;
    const recency = recencyOf(ranking, touchedAt[row]!, now);
    const top = combine(ranking, s, h, 0, importance[row]!, recency, pinned[row]!);
    if (top < bar || !accept(row)) continue;
    keep(row, top, combine(ranking, s, lo[row]!, 0, importance[row]!, recency, pinned[row]!));
  }

  // 3. The other keyword matches, exactly bounded; a coarse bound first spares most of them the lookup.
  if (keywords && n > 0) {
    const byKeyword = (raw: number) => combine(ranking, maxSource, maxCosine, keywords.normalise(raw), maxImportance, 1, maxPinned);
    // Accepted matches score at most bestRaw: if even it cannot reach B, no match can.
    const rawFloor = byKeyword(keywords.bestRaw) < bar ? Infinity : floorOf(byKeyword, bar);
    keywords.forEach(rawFloor, (id, keyword) => {
      const row = keywords.row(id);
      if (row === undefined) return;
      const recency = recencyOf(ranking, touchedAt[row]!, now);
      const top = combine(ranking, sourceAt(row), hi[row]!, keyword, importance[row]!, recency, pinned[row]!);
      if (top < bar || !accept(row)) return;
      keep(row, top, undefined);
    });
  }

  const rows = new Set<number>();
  for (let i = 0; i < kept.length; i++) if (keptHi[i]! >= bar) rows.add(kept[i]!);
  return [...rows];
}

/**
 * A value x with f(x) < bar, as large as a short search finds (−∞ if f(0) is
 * not below bar): f non-decreasing, so every y ≤ x has f(y) < bar too.
 */
function floorOf(f: (x: number) => number, bar: number): number {
  if (!(f(0) < bar)) return -Infinity;
  let below = 0;
  let above = 1;
  while (f(above) < bar) {
    below = above;
    above *= 2;
    if (above > 2 ** 100) return below;
  }
  for (let i = 0; i < 32; i++) {
    const middle = (below + above) / 2;
    if (f(middle) < bar) below = middle;
    else above = middle;
  }
  return below;
}
