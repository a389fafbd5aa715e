import { TOKENIZER_VERSION, tokenize } from '../text/tokenize.js';

/**
 * A batch of documents' index terms, tokenised once and kept in a few
 * columns, so the keyword postings of a snapshot page are rebuilt at open
 * without tokenising its texts again (`KeywordIndex.upsertLists`).
 * Tokenising was most of building the postings, and counting each
 * document's terms in a Map most of the rest, all of it work of the open
 * that the first keyword query waited for.
 *
 * The batch's distinct terms are one string (`terms`, joined by newlines: a
 * term never holds one, see tokenize.ts), which structured clone copies in
 * one piece, sorted (by UTF-16 code units), so a query finds a term in a
 * page's lists by binary search without building the keyword index first
 * (`termNumber`; lists an older engram saved in first-seen order are
 * searched one by one); document i's distinct terms are `term[start[i]]` up to
 * `term[start[i + 1]]` (indexes into the terms) with
 * their frequencies in `freq` (capped at 65,535, as the keyword index caps
 * them), and `length[i]` is its count of tokens. Lists from another
 * tokenizer version are not used (`readTermLists` returns undefined, and the
 * texts are tokenised instead).
 */
export interface TermLists {
  /** `TOKENIZER_VERSION` of the tokenizer that made them. */
  version: number;
  terms: string;
  start: Uint32Array;
  /** Uint16 when the batch has at most 65,536 distinct terms. */
  term: Uint16Array | Uint32Array;
  freq: Uint16Array;
  length: Uint32Array;
}

/** Term lists as `KeywordIndex.upsertLists` reads them: the joined terms split once. */
export interface TermListsReader extends Omit<TermLists, 'terms'> {
  terms: readonly string[];
  /** Whether `terms` are sorted (lists of this engram are), so `termNumber` may search them by halves. */
  sorted: boolean;
}

const MAX_FREQ = 65_535;

/**
 * One document's entry in term lists: its distinct terms in the order they
 * first occur, their frequencies, and its count of tokens. A page saved
 * again takes the entries of its unchanged documents from the stored page
 * (`docTermsAt`) rather than their texts, which the index does not keep.
 */
export interface DocTerms {
  terms: readonly string[];
  freqs: ArrayLike<number>;
  length: number;
}

/** Document `i`'s entry in `lists`. */
export function docTermsAt(lists: TermListsReader, i: number): DocTerms {
  const from = lists.start[i]!;
  const to = lists.start[i + 1]!;
  const terms: string[] = [];
  for (let k = from; k < to; k++) terms.push(lists.terms[lists.term[k]!]!);
  return { terms, freqs: lists.freq.subarray(from, to), length: lists.length[i]! };
}

/** The term lists of `texts`, in order. */
export function termListsOf(texts: readonly string[]): TermLists {
  return termListsOfTokens(texts.map(tokenize));
}

/**
 * The term lists of documents already tokenised (`tokenize` of each text, in
 * order), so a caller can tokenise in slices, or given by their entries
 * (`DocTerms`, from lists made before: the same lists as their tokens give).
 */
export function termListsOfTokens(documents: readonly (readonly string[] | DocTerms)[]): TermLists {
  const terms: string[] = [];
  const numberOf = new Map<string, number>();
  const start = new Uint32Array(documents.length + 1);
  const length = new Uint32Array(documents.length);
  const term: number[] = [];
  const freq: number[] = [];
  // Where this document's terms start in `term`, by term number (-1: not in it), reset after each document.
  const slotOf: number[] = [];
  for (let i = 0; i < documents.length; i++) {
    const document = documents[i]!;
    const first = term.length;
    if (!Array.isArray(document)) {
      // Distinct terms already counted: numbered as their tokens would be, in the same order.
      const entry = document as DocTerms;
      entry.terms.forEach((token, k) => {
        let n = numberOf.get(token);
        if (n === undefined) {
          numberOf.set(token, (n = terms.push(token) - 1));
          slotOf.push(-1);
        }
        term.push(n);
        freq.push(entry.freqs[k]!);
      });
      length[i] = entry.length;
      start[i + 1] = term.length;
      continue;
    }
    const tokens = document as readonly string[];
    for (const token of tokens) {
      let n = numberOf.get(token);
      if (n === undefined) {
        numberOf.set(token, (n = terms.push(token) - 1));
        slotOf.push(-1);
      }
      const slot = slotOf[n]!;
      if (slot < 0) {
        slotOf[n] = term.length;
        term.push(n);
        freq.push(1);
      } else if (freq[slot]! < MAX_FREQ) {
        freq[slot]!++;
      }
    }
    for (let k = first; k < term.length; k++) slotOf[term[k]!] = -1;
    length[i] = tokens.length;
    start[i + 1] = term.length;
  }
  // Numbered in sorted order: term number n becomes its rank.
  const order = terms.map((_, n) => n).sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
  const rankOf = new Uint32Array(terms.length);
  order.forEach((n, rank) => (rankOf[n] = rank));
  return {
    version: TOKENIZER_VERSION,
    terms: order.map((n) => terms[n]!).join('\n'),
    start,
    term: terms.length <= 65_536 ? Uint16Array.from(term, (n) => rankOf[n]!) : Uint32Array.from(term, (n) => rankOf[n]!),
    freq: Uint16Array.from(freq),
    length,
  };
}

/**
 * `lists` ready for the keyword index if they are of this tokenizer and fit
 * `count` documents (every index in range, starts ascending); undefined
 * otherwise, and the texts are tokenised instead. Lists are a cache the
 * snapshot keeps, so anything odd is a reason to ignore them, not an error.
 */
export function readTermLists(lists: unknown, count: number): TermListsReader | undefined {
  if (typeof lists !== 'object' || lists === null) return undefined;
  const { version, terms, start, term, freq, length } = lists as Partial<TermLists>;
  if (version !== TOKENIZER_VERSION || typeof terms !== 'string') return undefined;
  if (!(start instanceof Uint32Array) || !(length instanceof Uint32Array) || !(freq instanceof Uint16Array)) return undefined;
  if (!(term instanceof Uint16Array || term instanceof Uint32Array)) return undefined;
  if (start.length !== count + 1 || length.length !== count || start[0] !== 0 || start[count] !== term.length || freq.length !== term.length) return undefined;
  for (let i = 0; i < count; i++) if (start[i + 1]! < start[i]!) return undefined;
  const split = terms.length === 0 ? [] : terms.split('\n');
  for (let k = 0; k < term.length; k++) if (term[k]! >= split.length || freq[k] === 0) return undefined;
  let sorted = true;
  for (let n = 1; n < split.length && sorted; n++) sorted = split[n - 1]! < split[n]!;
  return { version, terms: split, start, term, freq, length, sorted };
}

/** The number of `token` in `lists`' terms, or -1. */
export function termNumber(lists: TermListsReader, token: string): number {
  if (!lists.sorted) return lists.terms.indexOf(token);
  let low = 0;
  let high = lists.terms.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const term = lists.terms[middle]!;
    if (term === token) return middle;
    if (term < token) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
