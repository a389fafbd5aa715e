import type { KeywordIndex } from './keyword-index.js';

/**
 * Documents loaded in bulk whose keyword postings are not built yet (see
 * `MemoryIndex.load`), kept as references into the arrays they were loaded
 * from rather than one object per document, and handed to the keyword index
 * oldest first, in as many steps as the caller likes. A null text is a
 * removal (a write replayed at open, `MemoryIndex.replay`): in order, so a
 * later removal or rewrite of a queued document wins.
 */
export class PendingKeywords {
  private chunks: { ids: readonly string[]; texts: readonly (string | null)[]; next: number; end: number }[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Queues documents `start` to `end` of parallel `ids` and `texts` (the arrays must not change afterwards). */
  add(ids: readonly string[], texts: readonly (string | null)[], start = 0, end = ids.length): void {
    if (end <= start) return;
    this.chunks.push({ ids, texts, next: start, end });
    this.count += end - start;
  }

  /** Builds the postings of up to `budget` queued documents into `keywords`; returns how many it built. */
  drainInto(keywords: KeywordIndex, budget = Infinity): number {
    let built = 0;
    while (built < budget && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const stop = Math.min(chunk.end, chunk.next + (budget - built));
      for (let i = chunk.next; i < stop; i++) {
        const text = chunk.texts[i]!;
        if (text === null) keywords.remove(chunk.ids[i]!);
        else keywords.upsert(chunk.ids[i]!, text);
      }
      built += stop - chunk.next;
      chunk.next = stop;
      if (chunk.next === chunk.end) this.chunks.shift();
    }
    this.count -= built;
    return built;
  }
}
