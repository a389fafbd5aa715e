import { unrefTimer } from '../timers.js';
import { timeMentions } from './time-mentions.js';

/** How often the warm-up looks again whether calls have paused. */
const POLL_MS = 100;

/**
 * Text with the relative times chat turns hold most ("yesterday", "last
 * week", "ago", "next", "this weekend"), so reading it runs the parsers and
 * patterns those turns need.
 */
export const WARMUP_SAMPLE = 'Yesterday we talked about last week; two days ago I said we would meet next Friday, or this weekend.';

/**
 * Reads one sample text for relative times (time-mentions.ts) once calls
 * have paused after the open. A runtime's first read compiles chrono-node's
 * parsers and their patterns: tens of milliseconds of a laptop's CPU, over a
 * tenth of a second of a phone's, which the first memory written with a
 * relative time in it (about a fifth of chat turns) would wait for. Read in
 * a pause, it is paid where no call waits, unless one arrives during it.
 * Returns a function that stops it; `read` is injected by tests.
 */
export function warmTimeMentions(isQuiet: () => boolean, read: () => void = () => void timeMentions(WARMUP_SAMPLE, Date.now())): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = () => {
    timer = setTimeout(() => {
      if (isQuiet()) read();
      else look();
    }, POLL_MS);
    unrefTimer(timer);
  };
  look();
  return () => clearTimeout(timer);
}
