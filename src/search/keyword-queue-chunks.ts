import type { QueuedSegment } from './keyword-query.js';
import { readTermLists, termListsOf, termNumber, type TermListsReader } from './term-lists.js';

/*
 * The chunks a PendingKeywords queue holds, and what is done to them:
 * runs of single writes coalesced, texts given term lists, term lists
 * turned around by term, and a query's tokens looked up across chunks.
 */

export interface Chunk {
  ids: readonly string[];
  /** The documents' texts (null: a removal); a chunk that came with term lists needs none (a snapshot page keeps no texts). */
  texts?: readonly (string | null)[];
  lists?: TermListsReader;
  /**
   * Its ids are distinct and none of them has a live queued document when it is queued (each earlier one is followed by
   * a queued removal), as a bulk load's pages: a look need not map these ids to tell which of their documents count.
   */
  unqueued?: boolean;
  next: number;
  end: number;
  /** Position of document 0 of `ids` in the queue (positions count every document ever queued, in order). */
  base: number;
  /** Documents from `next` up to this one have had their term lists counted (`KeywordIndex.expectLists`). */
  counted?: number;
  /** From `next` as of the last look (see `look`): 1 where the document is its id's last one queued and not a removal; `dead` counts the 0s. */
  last?: { from: number; flags: Uint8Array; dead: number };
  /** Its term lists by term (documents from `next` as it was then), made by `turnAround` or by the first query that reads it. */
  inverted?: Inverted;
}

/**
 * The queue with each run of consecutive chunks of texts (each write queues
 * one) made one chunk, before any gets its term lists. A query walks every
 * chunk for every token of the query: the writes a killed tab's replay
 * queues at open, as chunks of one, cost a query more than all the
 * snapshot's pages, each a chunk of thousands. Chunks with lists, removals,
 * and anything a look or a build has marked stay as they are.
 */
export function coalesceWrites(chunks: Chunk[]): Chunk[] {
  const out: Chunk[] = [];
  let run: Chunk[] = [];
  const endRun = () => {
    if (run.length > 1) {
      const ids: string[] = [];
      const texts: string[] = [];
      for (const chunk of run) {
        for (let i = chunk.next; i < chunk.end; i++) {
          ids.push(chunk.ids[i]!);
          texts.push(chunk.texts![i]!);
        }
      }
      out.push({ ids, texts, next: 0, end: ids.length, base: run[0]!.base + run[0]!.next });
    } else out.push(...run);
    run = [];
  };
  for (const chunk of chunks) {
    let texts = !chunk.lists && chunk.texts !== undefined && chunk.counted === undefined && !chunk.last && !chunk.inverted;
    for (let i = chunk.next; texts && i < chunk.end; i++) texts = !isRemoval(chunk, i);
    if (texts) run.push(chunk);
    else {
      endRun();
      out.push(chunk);
    }
  }
  endRun();
  return out;
}

/**
 * Gives a chunk of texts their term lists (tokenised once; building then
 * uses them too), in place. False for a chunk that mixes texts and
 * removals (MemoryIndex queues removals one by one); a chunk of removals
 * needs none.
 */
export function withLists(chunk: Chunk): boolean {
  if (chunk.lists) return true;
  let removals = 0;
  for (let i = chunk.next; i < chunk.end; i++) if (isRemoval(chunk, i)) removals++;
  if (removals === chunk.end - chunk.next) return true;
  if (removals > 0) return false;
  const texts = chunk.texts!.slice(chunk.next, chunk.end) as string[];
  const lists = readTermLists(termListsOf(texts), texts.length);
  if (!lists) return false; // (cannot happen: fresh lists always read)
  chunk.lists = lists;
  chunk.ids = chunk.ids.slice(chunk.next, chunk.end);
  chunk.texts = texts;
  chunk.base += chunk.next;
  chunk.end -= chunk.next;
  chunk.next = 0;
  return true;
}

/** Whether document `i` of `chunk` is a removal (a chunk with term lists holds none). */
export function isRemoval(chunk: Chunk, i: number): boolean {
  return chunk.texts !== undefined && chunk.texts[i] === null;
}

/** A chunk's term lists turned around: per term number, the documents holding it (ascending) and its frequency in each, so a query reads a term's documents without a pass over the chunk. */
export interface Inverted {
  start: Uint32Array;
  docs: Uint32Array;
  freqs: Uint16Array;
}

/** `lists`' documents `from` to `end` by term (a counting sort: no per-term objects). */
export function invert(lists: TermListsReader, from: number, end: number): Inverted {
  const start = new Uint32Array(lists.terms.length + 1);
  const first = lists.start[from]!;
  const last = lists.start[end]!;
  for (let k = first; k < last; k++) start[lists.term[k]! + 1]!++;
  for (let n = 0; n < lists.terms.length; n++) start[n + 1]! += start[n]!;
  const fill = start.slice(0, lists.terms.length);
  const docs = new Uint32Array(last - first);
  const freqs = new Uint16Array(last - first);
  for (let i = from; i < end; i++) {
    for (let k = lists.start[i]!; k < lists.start[i + 1]!; k++) {
      const at = fill[lists.term[k]!]!++;
      docs[at] = i;
      freqs[at] = lists.freq[k]!;
    }
  }
  return { start, docs, freqs };
}

/** The queued chunk holding `position` (chunks are in order of position). */
export function chunkAt(chunks: readonly Chunk[], position: number): Chunk {
  let low = 0;
  let high = chunks.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (chunks[middle]!.base + chunks[middle]!.next <= position) low = middle;
    else high = middle - 1;
  }
  return chunks[low]!;
}

/**
 * Per token, where the queued documents that count (`Chunk.last`) holding it
 * are: one segment per chunk that has it, in queue order, read in place from
 * the chunk's turned-around lists (no copy: copying a query's postings into
 * arrays of their own, then reading them back, touches each posting twice
 * and allocates on every query). A chunk a query reads is turned around first, if
 * the background has not done it yet: twice the cost of one pass over its
 * lists, and every later query reads a term's documents directly.
 */
export function postingsOf(chunks: readonly Chunk[], tokens: readonly string[], from: number): QueuedSegment[][] {
  const out: QueuedSegment[][] = tokens.map(() => []);
  for (const chunk of chunks) {
    const lists = chunk.lists;
    if (!lists || !chunk.last) continue;
    for (let t = 0; t < tokens.length; t++) {
      const n = termNumber(lists, tokens[t]!);
      if (n < 0) continue;
      const inverted = (chunk.inverted ??= invert(lists, chunk.next, chunk.end));
      const end = inverted.start[n + 1]!;
      // A term's documents ascend: those built since the chunk was turned around (below `next`) come first.
      const begin = firstAtLeast(inverted.docs, inverted.start[n]!, end, chunk.next);
      if (begin === end) continue;
      const { flags, from: flagsFrom, dead } = chunk.last;
      let count = end - begin;
      if (dead > 0) for (let k = begin; k < end; k++) if (flags[inverted.docs[k]! - flagsFrom] === 0) count--;
      if (count === 0) continue;
      out[t]!.push({ docs: inverted.docs, freqs: inverted.freqs, begin, end, lengths: lists.length, offset: chunk.base - from, flags: dead > 0 ? flags : null, flagsFrom, count });
    }
  }
  return out;
}

/** The first index in `from`..`to` of ascending `values` whose value is at least `value` (`to` if none). */
function firstAtLeast(values: Uint32Array, from: number, to: number, value: number): number {
  if (from === to || values[from]! >= value) return from;
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
