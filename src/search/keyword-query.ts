/*
 * What a keyword query reads and returns, whichever form the postings are
 * in: built into a KeywordIndex, or still queued as term lists
 * (search/pending-keywords.ts), which the index scores as one.
 */

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
 * Documents queued for a keyword index and not built into it yet, as a
 * query reads them (search/pending-keywords.ts): each id's last queued
 * document, unless it is a removal, numbered 0… in queue order.
 */
export interface QueuedPostings {
  /** How many: queued rows are 0 to size − 1. */
  readonly size: number;
  /** Their count of tokens, summed. */
  readonly totalLength: number;
  /** How many hold a document (removals are not rows, but `size` may count their positions). */
  readonly live: number;
  /** Ids whose built row, if any, a queued document (or removal) replaces. */
  replaced(): Iterable<string>;
  idAt(row: number): string;
  /** The queued row of `id`'s last document, if it is queued and not a removal. */
  rowOf(id: string): number | undefined;
  /** Per token, the queued rows holding it, in order, as segments read in place (valid until the queue changes). */
  postings(tokens: readonly string[]): QueuedSegment[][];
}

/**
 * Queued rows holding a token, in order: documents `docs[begin]` to
 * `docs[end − 1]` of one queued chunk (ascending), each the queued row
 * `offset` + itself, with the token's frequency at the same position of
 * `freqs` and its length at its own index of `lengths`. With `flags`, only
 * those whose flag (at index document − `flagsFrom`) is 1 count; `count`
 * is how many do.
 */
export interface QueuedSegment {
  readonly docs: ArrayLike<number>;
  readonly freqs: ArrayLike<number>;
  readonly begin: number;
  readonly end: number;
  readonly lengths: ArrayLike<number>;
  readonly offset: number;
  readonly flags: ArrayLike<number> | null;
  readonly flagsFrom: number;
  readonly count: number;
}
