import { unrefTimer } from '../timers.js';
import type { MemoryIndex } from './memory-index.js';

/**
 * Longest stretch of building per task. Whatever arrives meanwhile (a query,
 * an IndexedDB result the open is waiting for, the embedder's answer) waits
 * at most about this long: with 4,096 documents a task (about 20 ms), each
 * of the half-dozen awaits between the index load and the first answer at
 * open waited behind a slice.
 */
const SLICE_MS = 4;
/** Documents built between looks at the clock (tokenising one takes a few µs). */
const STEP = 64;

/**
 * Builds the keyword postings that `MemoryIndex.load` deferred, a few
 * milliseconds per task, so the first queries after open are answered in
 * between (a query that needs the postings before they are done builds the
 * rest itself). Returns a function that stops it.
 */
export function buildKeywordsInBackground(index: MemoryIndex): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = () => {
    timer = setTimeout(() => {
      const started = performance.now();
      let more = true;
      while (more && performance.now() - started < SLICE_MS) more = index.buildKeywords(STEP);
      if (more) next();
    }, 0);
    unrefTimer(timer);
  };
  next();
  return () => clearTimeout(timer);
}
