import { unrefTimer } from '../timers.js';

/**
 * Longest stretch of building per task. Whatever arrives meanwhile (a query,
 * an IndexedDB result the open is waiting for, the embedder's answer) waits
 * at most about this long: with a fixed count of documents a task, a slice
 * ran long, and each of the awaits between the index load and the first
 * answer at open waited behind one.
 */
const SLICE_MS = 4;
/** Documents built between looks at the clock (tokenising one is brief next to a slice). */
const STEP = 64;
/** How often a paused build looks again whether calls have paused. */
const PAUSED_POLL_MS = 25;
/** After waiting this long for a pause, the build takes a slice at every poll all the same, so calls that never pause do not starve it. */
const MAX_WAIT_MS = 1000;
/**
 * The slice it takes then, while calls keep coming: short, because a call
 * that arrives during it waits for it. With SLICE_MS slices every
 * PAUSED_POLL_MS, back-to-back recalls often met a slice and waited out
 * most of it, which lengthened recall's tail; a shorter slice costs each
 * recall that meets it less (`BENCH_QUERIES=500 npm run bench:real-cold`
 * prints both). The build then takes longer, and queries meanwhile read
 * the queued term lists, which cost a query a little more than the built
 * postings.
 */
const FORCED_SLICE_MS = 1;

/** What the warm-up drives: index-loader.ts's `keywordBuilder` over an index. */
export interface KeywordBuilder {
  buildKeywords(budget: number, build: boolean): 'done' | 'more' | 'paused';
}

/**
 * Builds the keyword postings that a bulk load (index-loader.ts) deferred, a few
 * milliseconds per task. Queries meanwhile read the queued postings as they
 * are (search/pending-keywords.ts), so building them is work that only
 * competes with calls: the chunks are turned around at once (that makes
 * those queries cheap), and the building itself waits while `isQuiet` says
 * calls keep coming (back-to-back recalls after an open each waited behind
 * building while it went on; after a second of calls without a pause it takes one
 * short slice per poll all the same); writes meanwhile join the queue. Returns a
 * function that stops it. `now` is the clock slices and waits are measured by
 * (injected by tests, with fake timers).
 */
export function buildKeywordsInBackground(index: KeywordBuilder, isQuiet: () => boolean = () => true, now: () => number = () => performance.now()): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waitingSince: number | undefined;
  const next = (delay: number) => {
    timer = setTimeout(() => {
      const started = now();
      const quiet = isQuiet();
      // Waited long enough for a pause: build all the same, one slice per poll rather than back to back.
      const forced = !quiet && waitingSince !== undefined && started - waitingSince > MAX_WAIT_MS;
      let state: 'done' | 'more' | 'paused' = 'more';
      while (state === 'more' && now() - started < (forced ? FORCED_SLICE_MS : SLICE_MS)) state = index.buildKeywords(STEP, quiet || forced);
      if (state === 'paused') waitingSince ??= started;
      else if (quiet) waitingSince = undefined;
      if (state !== 'done') next(state === 'paused' || forced ? PAUSED_POLL_MS : 0);
    }, delay);
    unrefTimer(timer);
  };
  next(0);
  return () => clearTimeout(timer);
}
