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
 * How many times the sample is read, each in a pause of its own: V8
 * compiles a regular expression to bytecode when it first runs and to
 * machine code when it runs again, and chrono's time-unit patterns are
 * large. In Node 20 the second compile is the costly one (a tenth of a
 * second or more at 1×, for "two days ago" or "a week later").
 */
const READS = 2;

/**
 * Reads a sample text for relative times (time-mentions.ts) in pauses
 * after the open. A runtime's first reads compile chrono-node's parsers and
 * their patterns, which the first memories written with a relative time in
 * them (about a fifth of chat turns) would otherwise wait for. Read in a
 * pause, it is paid where no call waits, unless one arrives during it.
 * Returns a function that stops it; `read` is injected by tests.
 */
export function warmTimeMentions(isQuiet: () => boolean, read: () => void = () => void timeMentions(WARMUP_SAMPLE, Date.now())): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = READS;
  const look = () => {
    timer = setTimeout(() => {
      if (isQuiet()) {
        read();
        left--;
      }
      if (left > 0) look();
    }, POLL_MS);
    unrefTimer(timer);
  };
  look();
  return () => clearTimeout(timer);
}
