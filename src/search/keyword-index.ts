import { tokenize } from './tokenize.js';

/** BM25+ parameters (as MiniSearch uses them): term saturation, length normalisation, lower bound per matched term. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

interface Postings {
  rows: Int32Array;
  freqs: Float32Array;
  length: number;
  /** Live documents containing the term (postings of deleted rows linger until compaction). */
  df: number;
}

export interface KeywordResult {
  /** The best `limit` accepted matches, best first. */
  hits: { id: string; score: number }[];
  /** The best accepted score (0 when nothing matched). */
  best: number;
  /** Raw BM25 score of any document for this query (0 if it matched no term). Valid until the next query. */
  scoreOf(id: string): number;
  /** Visits every document that matched a term with a raw score above `above`, accepted or not. Valid until the next query. */
  forEach(above: number, visit: (id: string, score: number) => void): void;
}

/**
 * BM25+ keyword search over one user's memories: an inverted index of typed
 * arrays scored with an accumulator, returning only the top matches.
 *
 * Why not MiniSearch (the first version used it): MiniSearch materialises
 * every matching document with its match details, which measured about
 * 100 ms per query at 100k memories against about 1 ms here, and twice the
 * build time (bench/keyword.ts prints both, same tokenizer).
 * Deletes leave tombstones that are compacted away once they are a third of
 * the rows.
 */
export class KeywordIndex {
  private readonly postings = new Map<string, Postings>();
  private readonly rowOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private termsOfRow: (string[] | undefined)[] = [];
  private lengths = new Float32Array(64);
  private live = 0;
  private totalLength = 0;
  private dead = 0;
  private accumulator = new Float32Array(64);
  private touched: number[] = [];

  get size(): number {
    return this.live;
  }

  upsert(id: string, text: string): void {
    this.remove(id);
    const terms = tokenize(text);
    const row = this.ids.length;
    this.ids.push(id);
    this.rowOf.set(id, row);
    if (row >= this.lengths.length) this.lengths = grow(this.lengths, row + 1);
    this.lengths[row] = terms.length;
    this.totalLength += terms.length;
    this.live++;

    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      let p = this.postings.get(term);
      if (!p) this.postings.set(term, (p = { rows: new Int32Array(4), freqs: new Float32Array(4), length: 0, df: 0 }));
      if (p.length === p.rows.length) {
        p.rows = grow(p.rows, p.length + 1);
        p.freqs = grow(p.freqs, p.length + 1);
      }
      p.rows[p.length] = row;
      p.freqs[p.length] = count;
      p.length++;
      p.df++;
    }
    this.termsOfRow[row] = [...counts.keys()];
  }

  upsertMany(docs: { id: string; text: string }[]): void {
    for (const doc of docs) this.upsert(doc.id, doc.text);
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    for (const term of this.termsOfRow[row] ?? []) this.postings.get(term)!.df--;
    this.totalLength -= this.lengths[row]!;
    this.ids[row] = undefined;
    this.termsOfRow[row] = undefined;
    this.rowOf.delete(id);
    this.live--;
    this.dead++;
    if (this.dead > 1000 && this.dead * 3 > this.ids.length) this.compact();
    return true;
  }

  query(text: string, options: { limit: number; accept?: (id: string) => boolean }): KeywordResult {
    for (const row of this.touched) this.accumulator[row] = 0;
    const touched: number[] = (this.touched = []);
    if (this.accumulator.length < this.ids.length) this.accumulator = new Float32Array(Math.max(this.ids.length, this.accumulator.length * 2));
    const acc = this.accumulator;
    const avgLength = this.live > 0 ? this.totalLength / this.live : 1;

    for (const term of new Set(tokenize(text))) {
      const p = this.postings.get(term);
      if (!p || p.df <= 0) continue;
      const idf = Math.log(1 + (this.live - p.df + 0.5) / (p.df + 0.5));
      for (let i = 0; i < p.length; i++) {
        const row = p.rows[i]!;
        if (this.ids[row] === undefined) continue;
        const tf = p.freqs[i]!;
        const norm = tf + K1 * (1 - B + (B * this.lengths[row]!) / avgLength);
        if (acc[row] === 0) this.touched.push(row);
        acc[row]! += idf * ((tf * (K1 + 1)) / norm + DELTA);
      }
    }

    const hits = topRows(this.touched, acc, options.limit, (row) => !options.accept || options.accept(this.ids[row]!)).map(
      ({ row, score }) => ({ id: this.ids[row]!, score }),
    );
    return {
      hits,
      best: hits[0]?.score ?? 0,
      scoreOf: (id) => {
        const row = this.rowOf.get(id);
        return row === undefined ? 0 : acc[row] ?? 0;
      },
      forEach: (above, visit) => {
        for (const row of touched) if (acc[row]! > above) visit(this.ids[row]!, acc[row]!);
      },
    };
  }

  /** Drops tombstoned rows and renumbers the rest. */
  private compact(): void {
    const newRow = new Int32Array(this.ids.length).fill(-1);
    const ids: (string | undefined)[] = [];
    const terms: (string[] | undefined)[] = [];
    const lengths = new Float32Array(Math.max(64, this.live));
    this.ids.forEach((id, row) => {
      if (id === undefined) return;
      newRow[row] = ids.length;
      lengths[ids.length] = this.lengths[row]!;
      this.rowOf.set(id, ids.length);
      ids.push(id);
      terms.push(this.termsOfRow[row]);
    });
    for (const [term, p] of this.postings) {
      let w = 0;
      for (let i = 0; i < p.length; i++) {
        const mapped = newRow[p.rows[i]!]!;
        if (mapped < 0) continue;
        p.rows[w] = mapped;
        p.freqs[w] = p.freqs[i]!;
        w++;
      }
      p.length = w;
      if (w === 0) this.postings.delete(term);
    }
    this.ids = ids;
    this.termsOfRow = terms;
    this.lengths = lengths;
    this.dead = 0;
    this.accumulator = new Float32Array(Math.max(64, ids.length));
    this.touched = [];
  }
}

function grow<T extends Int32Array | Float32Array>(array: T, minLength: number): T {
  let length = array.length * 2;
  while (length < minLength) length *= 2;
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

/** The `limit` best rows among `rows` by `scores`, best first. */
function topRows(rows: number[], scores: Float32Array, limit: number, accept: (row: number) => boolean): { row: number; score: number }[] {
  if (rows.length <= limit * 4) {
    return rows
      .filter(accept)
      .map((row) => ({ row, score: scores[row]! }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
  // Many matches: keep a small sorted buffer instead of sorting them all.
  const best: { row: number; score: number }[] = [];
  let floor = -Infinity;
  for (const row of rows) {
    const score = scores[row]!;
    if (best.length >= limit && score <= floor) continue;
    if (!accept(row)) continue;
    let i = best.length;
    best.push({ row, score });
    while (i > 0 && best[i - 1]!.score < score) {
      best[i] = best[i - 1]!;
      i--;
    }
    best[i] = { row, score };
    if (best.length > limit) best.pop();
    if (best.length >= limit) floor = best[best.length - 1]!.score;
  }
  return best;
}
