import MiniSearch from 'minisearch';
import { STOPWORDS } from './stopwords.js';

/**
 * BM25 keyword search over one user's memories, backed by MiniSearch.
 * Terms are lower-cased and stop words dropped; matching is exact-term (no
 * fuzzy or prefix), which measured best on LoCoMo.
 */
export class KeywordIndex {
  private readonly search: MiniSearch<{ id: string; text: string }>;

  constructor() {
    this.search = new MiniSearch({
      fields: ['text'],
      storeFields: [],
      processTerm: processTerm,
      searchOptions: { processTerm: processTerm },
    });
  }

  get size(): number {
    return this.search.documentCount;
  }

  upsert(id: string, text: string): void {
    if (this.search.has(id)) this.search.discard(id);
    this.search.add({ id, text });
  }

  upsertMany(docs: { id: string; text: string }[]): void {
    const fresh = docs.filter((d) => {
      if (!this.search.has(d.id)) return true;
      this.search.discard(d.id);
      return true;
    });
    this.search.addAll(fresh);
  }

  remove(id: string): boolean {
    if (!this.search.has(id)) return false;
    this.search.discard(id);
    return true;
  }

  /** Every matching document with its raw BM25 score, best first. */
  query(text: string, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const results = this.search.search(text, {
      combineWith: 'OR',
      filter: accept ? (result) => accept(result.id as string) : undefined,
    });
    return results.map((r) => ({ id: r.id as string, score: r.score }));
  }
}

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower.length === 0 || STOPWORDS.has(lower)) return null;
  return lower;
}
