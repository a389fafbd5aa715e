import { unrefTimer } from '../timers.js';
import type { MemoryIndex } from './memory-index.js';

/** Documents per task: small enough that a query waiting behind one slice is not held up long. */
const SLICE = 4096;

/**
 * Builds the keyword postings that `MemoryIndex.load` deferred, a slice per
 * task, so the first queries after open are answered in between (a query
 * that needs the postings before they are done builds the rest itself).
 * Returns a function that stops it.
 */
export function buildKeywordsInBackground(index: MemoryIndex): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = () => {
    timer = setTimeout(() => {
      if (index.buildKeywords(SLICE)) next();
    }, 0);
    unrefTimer(timer);
  };
  next();
  return () => clearTimeout(timer);
}
