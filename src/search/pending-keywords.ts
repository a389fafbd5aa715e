import type { KeywordIndex } from './keyword-index.js';
import type { TermListsReader } from './term-lists.js';

/**
 * Documents loaded in bulk whose keyword postings are not built yet (see
 * `MemoryIndex.load`), kept as references into the arrays they were loaded
 * from rather than one object per document, and handed to the keyword index
 * oldest first, in as many steps as the caller likes. A null text is a
 * removal (a write replayed at open, `MemoryIndex.replay`): in order, so a
 * later removal or rewrite of a queued document wins. Documents that come
 * with their term lists (a snapshot page's, search/term-lists.ts) are built
 * from those, without tokenising their texts.
 */
export class PendingKeywords {
  private chunks: { ids: readonly string[]; texts: readonly (string | null)[]; lists?: TermListsReader; next: number; end: number; expected?: boolean }[] = [];
  private count = 0;
  /** Term lists were loaded since the queue was last empty: the keyword index trims its lists once it is. */
  private trimDue = false;

  get size(): number {
    return this.count;
  }

  /**
   * Queues documents `start` to `end` of parallel `ids` and `texts` (the
   * arrays must not change afterwards), and of `lists`, their terms, when
   * given (then no text is null).
   */
  add(ids: readonly string[], texts: readonly (string | null)[], start = 0, end = ids.length, lists?: TermListsReader): void {
    if (end <= start) return;
    this.chunks.push({ ids, texts, lists, next: start, end });
    this.count += end - start;
  }

  /**
   * Builds the postings of up to `budget` queued documents into `keywords`;
   * returns the work done, in documents. Every queued chunk's term lists
   * are counted first (`KeywordIndex.expectLists`, a chunk's documents worth
   * of budget each), so the postings are built into arrays of their final
   * size; then the documents are built in order.
   */
  drainInto(keywords: KeywordIndex, budget = Infinity): number {
    let counted = 0;
    for (const chunk of this.chunks) {
      if (!chunk.lists || chunk.expected) continue;
      if (counted >= budget) return counted;
      keywords.expectLists(chunk.lists, chunk.next, chunk.end);
      chunk.expected = true;
      counted += chunk.end - chunk.next;
    }
    let built = 0;
    budget -= counted;
    while (built < budget && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const stop = Math.min(chunk.end, chunk.next + (budget - built));
      if (chunk.lists) {
        keywords.upsertLists(chunk.ids, chunk.lists, chunk.next, stop);
        this.trimDue = true;
      } else {
        for (let i = chunk.next; i < stop; i++) {
          const text = chunk.texts[i]!;
          if (text === null) keywords.remove(chunk.ids[i]!);
          else keywords.upsert(chunk.ids[i]!, text);
        }
      }
      built += stop - chunk.next;
      chunk.next = stop;
      if (chunk.next === chunk.end) this.chunks.shift();
    }
    this.count -= built;
    if (this.count === 0 && this.trimDue) {
      keywords.trim();
      this.trimDue = false;
    }
    return counted + built;
  }
}
