import { afterEach, describe, expect, it, vi } from 'vitest';
import { WARMUP_SAMPLE, warmTimeMentions } from '../../src/time/warm-time-mentions.js';
import { timeMentions } from '../../src/time/time-mentions.js';

/**
 * The time reader's first read, paid in a pause after the open
 * (src/time/warm-time-mentions.ts): not while calls keep coming, once, and
 * never after the engine stopped it.
 */
describe('warmTimeMentions', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads twice, each time in a pause, never while calls keep coming, and then stops', () => {
    vi.useFakeTimers();
    let quiet = false;
    const read = vi.fn();
    warmTimeMentions(() => quiet, read);
    vi.advanceTimersByTime(2_000);
    expect(read).not.toHaveBeenCalled();
    quiet = true;
    vi.advanceTimersByTime(100);
    expect(read).toHaveBeenCalledTimes(1);
    // The second read waits for a pause too, in a task of its own.
    quiet = false;
    vi.advanceTimersByTime(2_000);
    expect(read).toHaveBeenCalledTimes(1);
    quiet = true;
    vi.advanceTimersByTime(100);
    expect(read).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(10_000);
    expect(read).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never reads once stopped', () => {
    vi.useFakeTimers();
    const read = vi.fn();
    const stop = warmTimeMentions(() => false, read);
    vi.advanceTimersByTime(500);
    stop();
    vi.advanceTimersByTime(10_000);
    const stopQuiet = warmTimeMentions(() => true, read);
    stopQuiet();
    vi.advanceTimersByTime(10_000);
    expect(read).not.toHaveBeenCalled();
  });

  it("reads a sample that passes the reader's gate and holds the relative times chat turns hold most", () => {
    // A sample stopped at the gate (time-mentions.ts) would compile nothing.
    const mentions = timeMentions(WARMUP_SAMPLE, Date.UTC(2026, 10, 25, 12));
    expect(mentions.map((m) => m.text)).toEqual(expect.arrayContaining(['Yesterday', 'last week', 'two days ago', 'next Friday']));
  });
});
