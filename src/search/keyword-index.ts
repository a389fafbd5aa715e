import { clearRows, fillWeights, NO_SEGMENTS, NO_WEIGHTS, scoreBuilt, scoreQueued, scoreRow, topRows, visitAbove, WEIGHTED_LENGTHS } from './bm25-scoring.js';
import type { KeywordResult, QueuedPostings } from './keyword-query.js';
import type { TermListsReader } from './term-lists.js';
import { tokenize } from '../text/tokenize.js';

/**
 * BM25+ keyword search over one user's memories: an inverted index of typed
 * arrays scored with an accumulator, returning only the top matches.
 *
 * Why not MiniSearch (the first version used it): MiniSearch materialises
 * every matching document with its match details, allocating per match on
 * every query, where this index adds scores into one typed accumulator; its
 * build is slower too (bench/keyword.ts prints both, same tokenizer).
 * Deletes leave tombstones that are compacted away once they are a third of
 * the rows.
 *
 * Memory: most terms of real text occur once (names, numbers, typos), so a
 * term is a number, not an object: its posting list lives in arrays indexed
 * by term number, a term found once keeps its one posting inline, typed
 * arrays come only with the second posting (each typed array is an object
 * and a backing store in V8 before it holds anything), frequencies only
 * with the first above 1, and arrays grow by a quarter. A term's document
 * frequency is counted over its live postings when a query reads them (the
 * loop that scores them), so a delete needs no list of the row's terms.
 */
export class KeywordIndex {
  /** Term → term number (indexes the per-term arrays below). */
  private terms = new Map<string, number>();
  /** Per term: postings held, live or not. */
  private count: number[] = [];
  /** Per term with one posting: its row and frequency (the typed arrays come with the second). */
  private firstRow: number[] = [];
  private firstFreq: number[] = [];
  /** Per term with two or more postings: their rows, and their frequencies once one is above 1 (capped at 65,535). */
  private rows: (Int32Array | undefined)[] = [];
  private freqs: (Uint16Array | undefined)[] = [];
  private readonly rowOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private lengths = new Float32Array(64);
  private live = 0;
  private totalLength = 0;
  private dead = 0;
  private compactions = 0;
  /** While loading term lists, posting arrays double (fewer copies) and `trim` gives the room back afterwards. */
  private loading = false;
  /** Per term: postings that term lists counted by `expectLists` will bring, so its arrays are allocated once, at that size. */
  private expected: number[] = [];
  /** Each term lists' terms by list index → term number (-1: not looked up yet), valid while `compactions` is unchanged. */
  private readonly numbersOf = new WeakMap<TermListsReader, { numbers: Int32Array; compactions: number }>();
  private accumulator = new Float32Array(64);
  /**
   * The rows the last query scored (`touchedCount` of them), so the next one clears only those. Kept across
   * queries, as large as the accumulator: as a fresh array a query pushed every matching row into, it left
   * garbage in proportion to the matches on every query, which collections then paid for.
   */
  private touched = new Int32Array(64);
  private touchedCount = 0;
  /** A term's score for a document holding it once, by the document's length (see `fillWeights`); refilled for each term of a query. */
  private readonly weights = new Float64Array(WEIGHTED_LENGTHS);

  get size(): number {
    return this.live;
  }

  upsert(id: string, text: string): void {
    this.remove(id);
    const tokens = tokenize(text);
    const row = this.ids.length;
    this.ids.push(id);
    this.rowOf.set(id, row);
    if (row >= this.lengths.length) this.lengths = grow(this.lengths, row + 1);
    this.lengths[row] = tokens.length;
    this.totalLength += tokens.length;
    this.live++;

    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [token, frequency] of counts) this.addPosting(this.termOf(token), row, Math.min(frequency, 65_535));
  }

  /**
   * As `upsert` of documents `start` to `end` of `ids`, from their term
   * lists (a snapshot page's, search/term-lists.ts) rather than their texts:
   * no tokenising, no counting, one look-up per distinct term of the run.
   */
  upsertLists(ids: readonly string[], lists: TermListsReader, start: number, end: number): void {
    const numberOf = this.numbersFor(lists);
    this.loading = true;
    for (let i = start; i < end; i++) {
      const id = ids[i]!;
      const compactions = this.compactions;
      this.remove(id);
      // A compaction numbers the terms again.
      if (this.compactions !== compactions) {
        numberOf.fill(-1);
        this.numbersOf.set(lists, { numbers: numberOf, compactions: this.compactions });
      }
      const row = this.ids.length;
      this.ids.push(id);
      this.rowOf.set(id, row);
      if (row >= this.lengths.length) this.lengths = grow(this.lengths, row + 1);
      const length = lists.length[i]!;
      this.lengths[row] = length;
      this.totalLength += length;
      this.live++;
      for (let k = lists.start[i]!; k < lists.start[i + 1]!; k++) {
        const local = lists.term[k]!;
        let term = numberOf[local]!;
        if (term < 0) numberOf[local] = term = this.termOf(lists.terms[local]!);
        this.addPosting(term, row, lists.freq[k]!);
      }
    }
    this.loading = false;
  }

  /**
   * Counts the postings that `upsertLists` of documents `start` to `end` of
   * `lists` will bring to each term, before any of them is loaded: a term's
   * posting arrays are then allocated once, at their final size, instead of
   * doubling from 4 (each doubling copies the list into fresh memory, a
   * cost paid across every posting loaded). Counting more than arrives (a
   * document removed meanwhile) only leaves room that `trim` gives back.
   */
  expectLists(lists: TermListsReader, start: number, end: number): void {
    const numberOf = this.numbersFor(lists);
    for (let k = lists.start[start]!; k < lists.start[end]!; k++) {
      const local = lists.term[k]!;
      let term = numberOf[local]!;
      if (term < 0) numberOf[local] = term = this.termOf(lists.terms[local]!);
      this.expected[term]!++;
    }
  }

  /**
   * Shrinks posting arrays that `upsertLists` left with more than a
   * quarter spare back to what `upsert` would have left them with. Bulk
   * loading doubles them: a quarter at a time copies each list about 5
   * times its length, a large share of loading the postings.
   */
  trim(): void {
    // Loaded: what was expected has arrived (or was left out), and later postings grow arrays as `upsert` does.
    this.expected.fill(0);
    for (let term = 0; term < this.count.length; term++) {
      const rows = this.rows[term];
      const n = this.count[term]!;
      if (!rows || rows.length <= n + Math.max(4, n >> 2)) continue;
      this.rows[term] = rows.slice(0, n + Math.max(4, n >> 2));
      const freqs = this.freqs[term];
      if (freqs) this.freqs[term] = freqs.slice(0, n + Math.max(4, n >> 2));
    }
  }

  upsertMany(docs: { id: string; text: string }[]): void {
    for (const doc of docs) this.upsert(doc.id, doc.text);
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    this.totalLength -= this.lengths[row]!;
    this.ids[row] = undefined;
    this.rowOf.delete(id);
    this.live--;
    this.dead++;
    if (this.dead > 1000 && this.dead * 3 > this.ids.length) this.compact();
    return true;
  }

  /**
   * The best `limit` matches for `text`. With `queued`, documents not built
   * into the index yet (search/pending-keywords.ts) take part as if they
   * had been, in their order: the same hits, scores and statistics as the
   * index that building them all would give, without building them.
   */
  query(text: string, options: { limit: number; accept?: (id: string) => boolean }, queued?: QueuedPostings): KeywordResult {
    clearRows(this.accumulator, this.touched, this.touchedCount);
    this.touchedCount = 0;
    const ids = this.ids;
    // Queued documents are rows after the built ones, in queue order: where building them would put them.
    const built = ids.length;
    const rowCount = built + (queued?.size ?? 0);
    if (this.accumulator.length < rowCount) {
      this.accumulator = new Float32Array(Math.max(rowCount, this.accumulator.length * 2));
      this.touched = new Int32Array(this.accumulator.length);
    }
    const acc = this.accumulator;
    // Each row once (every addition is positive, so a row's score leaves 0 for good), so the accumulator's length bounds
    // their number; the check below only guards that reasoning.
    let touched = this.touched;
    let count = 0;
    const lengths = this.lengths;
    // Built rows whose id a queued document writes again (or removes): that one counts instead.
    const replaced = new Set<number>();
    let replacedLength = 0;
    // Nothing built, nothing to replace (the queue's repeated ids are a thousand after a killed tab's replay).
    for (const id of queued && this.rowOf.size > 0 ? queued.replaced() : []) {
      const row = this.rowOf.get(id);
      if (row === undefined) continue;
      replaced.add(row);
      replacedLength += lengths[row]!;
    }
    const live = this.live - replaced.size + (queued?.live ?? 0);
    const totalLength = this.totalLength - replacedLength + (queued?.totalLength ?? 0);
    const avgLength = live > 0 ? totalLength / live : 1;
    const skips = this.dead > 0 || replaced.size > 0;
    const skipped = (row: number) => ids[row] === undefined || replaced.has(row);

    const tokens = [...new Set(tokenize(text))];
    const queuedPostings = queued?.postings(tokens);
    const weights = this.weights;
    for (let t = 0; t < tokens.length; t++) {
      const term = this.terms.get(tokens[t]!);
      const n = term === undefined ? 0 : this.count[term]!;
      const rows = n < 2 ? undefined : this.rows[term!]!;
      const freqs = n < 2 ? undefined : this.freqs[term!];
      const more = queuedPostings?.[t] ?? NO_SEGMENTS;
      // Document frequency: the term's live postings (all of them while no row was deleted or replaced), and the queued ones.
      let df = n;
      if (skips) {
        df = 0;
        for (let i = 0; i < n; i++) if (!skipped(rows ? rows[i]! : this.firstRow[term!]!)) df++;
      }
      for (const segment of more) df += segment.count;
      if (df === 0) continue;
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
      // The table costs as many scores as it has lengths: worth it only for a term with at least as many postings.
      const table = df >= WEIGHTED_LENGTHS ? fillWeights(weights, idf, avgLength) : NO_WEIGHTS;
      if (count + df > touched.length) touched = this.touched = grow(touched, count + df, true);
      if (n === 1) {
        const row = this.firstRow[term!]!;
        if (!(skips && skipped(row))) count = scoreRow(acc, touched, count, row, this.firstFreq[term!]!, lengths[row]!, table, idf, avgLength);
      } else if (n > 1) {
        if (skips) {
          for (let i = 0; i < n; i++) {
            const row = rows![i]!;
            if (!skipped(row)) count = scoreRow(acc, touched, count, row, freqs ? freqs[i]! : 1, lengths[row]!, table, idf, avgLength);
          }
        } else count = scoreBuilt(acc, touched, count, rows!, freqs, n, lengths, table, idf, avgLength);
      }
      for (const segment of more) count = scoreQueued(acc, touched, count, segment, built + segment.offset, table, idf, avgLength);
    }

    this.touchedCount = count;
    const scored = touched.subarray(0, count);
    const idOf = (row: number) => (row < built ? ids[row]! : queued!.idAt(row - built));
    const hits = topRows(scored, acc, options.limit, (row) => !options.accept || options.accept(idOf(row))).map(({ row, score }) => ({ id: idOf(row), score }));
    return {
      hits,
      best: hits[0]?.score ?? 0,
      scoreOf: (id) => {
        const row = this.rowOf.get(id);
        if (row !== undefined && !replaced.has(row)) return acc[row] ?? 0;
        const queuedRow = queued?.rowOf(id);
        return queuedRow === undefined ? 0 : acc[built + queuedRow] ?? 0;
      },
      forEach: (above, visit) => visitAbove(scored, acc, above, (row, score) => visit(idOf(row), score)),
    };
  }

  /** The number of `token`, numbering it if it is new. */
  private termOf(token: string): number {
    let term = this.terms.get(token);
    if (term === undefined) {
      term = this.count.length;
      this.terms.set(token, term);
      this.count.push(0);
      this.firstRow.push(0);
      this.firstFreq.push(0);
      this.rows.push(undefined);
      this.freqs.push(undefined);
      this.expected.push(0);
    }
    return term;
  }

  /** The term numbers of `lists`' terms looked up so far (a fresh table after a compaction). */
  private numbersFor(lists: TermListsReader): Int32Array {
    const known = this.numbersOf.get(lists);
    if (known && known.compactions === this.compactions) return known.numbers;
    const numbers = new Int32Array(lists.terms.length).fill(-1);
    this.numbersOf.set(lists, { numbers, compactions: this.compactions });
    return numbers;
  }

  private addPosting(term: number, row: number, frequency: number): void {
    const n = this.count[term]!;
    this.count[term] = n + 1;
    if (n === 0) {
      this.firstRow[term] = row;
      this.firstFreq[term] = frequency;
      return;
    }
    if (n === 1) {
      // The second posting: the first moves into typed arrays (as long as the postings expected, while loading lists).
      const rows = (this.rows[term] = new Int32Array(Math.max(4, this.loading ? this.expected[term]! : 0)));
      rows[0] = this.firstRow[term]!;
      if (this.firstFreq[term] !== 1) {
        const freqs = (this.freqs[term] = new Uint16Array(rows.length).fill(1));
        freqs[0] = this.firstFreq[term]!;
      }
    } else if (n === this.rows[term]!.length) {
      this.rows[term] = grow(this.rows[term]!, n + 1, this.loading);
      if (this.freqs[term]) this.freqs[term] = grow(this.freqs[term], n + 1, this.loading);
    }
    this.rows[term]![n] = row;
    if (frequency !== 1 && !this.freqs[term]) this.freqs[term] = new Uint16Array(this.rows[term]!.length).fill(1);
    if (this.freqs[term]) this.freqs[term][n] = frequency;
  }

  /** Drops tombstoned rows and renumbers the rest, and the terms no live row holds. */
  private compact(): void {
    const newRow = new Int32Array(this.ids.length).fill(-1);
    const ids: (string | undefined)[] = [];
    const lengths = new Float32Array(Math.max(64, this.live));
    for (let row = 0; row < this.ids.length; row++) {
      const id = this.ids[row];
      if (id === undefined) continue;
      newRow[row] = ids.length;
      lengths[ids.length] = this.lengths[row]!;
      this.rowOf.set(id, ids.length);
      ids.push(id);
    }
    // Terms are numbered again in their order, those with no live row left out.
    const old = { terms: this.terms, count: this.count, firstRow: this.firstRow, firstFreq: this.firstFreq, rows: this.rows, freqs: this.freqs };
    this.terms = new Map();
    this.count = [];
    this.firstRow = [];
    this.firstFreq = [];
    this.rows = [];
    this.freqs = [];
    // Numbered again: what was expected is dropped (the arrays then grow as they fill).
    this.expected = [];
    for (const [token, term] of old.terms) {
      const n = old.count[term]!;
      const rows = old.rows[term];
      const freqs = old.freqs[term];
      let next: number | undefined;
      for (let i = 0; i < n; i++) {
        const mapped = newRow[rows ? rows[i]! : old.firstRow[term]!]!;
        if (mapped < 0) continue;
        next ??= this.termOf(token);
        this.addPosting(next, mapped, rows ? (freqs ? freqs[i]! : 1) : old.firstFreq[term]!);
      }
    }
    this.ids = ids;
    this.lengths = lengths;
    this.dead = 0;
    this.compactions++;
    this.accumulator = new Float32Array(Math.max(64, ids.length));
    this.touched = new Int32Array(this.accumulator.length);
    this.touchedCount = 0;
  }
}

/** A longer copy of `array`: by a quarter (at least 4), or twice as long with `double`, or to `minLength`. */
function grow<T extends Int32Array | Float32Array | Uint16Array>(array: T, minLength: number, double = false): T {
  const length = Math.max(minLength, double ? array.length * 2 : array.length + Math.max(4, array.length >> 2));
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
