import { describe, expect, it } from 'vitest';
import { buildKeywordsInBackground } from '../../src/search/keyword-warmup.js';
import type { MemoryIndex } from '../../src/search/memory-index.js';

/**
 * The background build of deferred keyword postings (src/search/keyword-warmup.ts)
 * against a scripted index whose every call is recorded: chunks are turned
 * around at once, building waits for a pause in calls, and calls that never
 * pause do not starve it.
 */
function scriptedIndex(turnSteps: number, buildSteps: number, stepMs = 5) {
  const calls: { start: number; at: number; build: boolean; result: 'done' | 'more' | 'paused' }[] = [];
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const index = {
    buildKeywords(_budget: number, build: boolean) {
      const start = performance.now();
      let result: 'done' | 'more' | 'paused';
      if (turnSteps > 0) result = --turnSteps > 0 || buildSteps > 0 ? 'more' : 'done';
      else if (!build) result = 'paused';
      else {
        // By default a build step longer than a slice (4 ms): one step per slice.
        for (const until = performance.now() + stepMs; performance.now() < until; );
        result = --buildSteps > 0 ? 'more' : 'done';
      }
      calls.push({ start, at: performance.now(), build, result });
      if (result === 'done') finished();
      return result;
    },
  };
  return { index: index as unknown as MemoryIndex, calls, done };
}

describe('building deferred keyword postings in the background', () => {
  it('builds at once while calls are quiet', async () => {
    const { index, calls, done } = scriptedIndex(3, 5);
    const started = performance.now();
    const stop = buildKeywordsInBackground(index, () => true);
    await done;
    stop();
    expect(calls.map((c) => c.result)).toEqual(['more', 'more', 'more', 'more', 'more', 'more', 'more', 'done']);
    expect(calls.every((c) => c.build)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('turns chunks around while calls keep coming, waits for a pause to build, and builds one slice per poll after a second without one', async () => {
    const { index, calls, done } = scriptedIndex(3, 4);
    const started = performance.now();
    const stop = buildKeywordsInBackground(index, () => false);
    await done;
    stop();
    const turned = calls.slice(0, 3);
    const builds = calls.filter((c) => c.build && c.at > turned[2]!.at);
    // The turning around went on regardless; then only paused looks until a second had passed.
    expect(turned.map((c) => c.result)).toEqual(['more', 'more', 'more']);
    expect(calls.slice(3, -builds.length).every((c) => !c.build && c.result === 'paused')).toBe(true);
    expect(builds).toHaveLength(4);
    expect(builds[0]!.at - started).toBeGreaterThanOrEqual(1000);
    // One slice per poll, not back to back.
    for (let i = 1; i < builds.length; i++) expect(builds[i]!.at - builds[i - 1]!.at).toBeGreaterThanOrEqual(15);
  });

  it('takes short slices while calls keep coming (a call that arrives waits for the slice), longer ones in a pause', async () => {
    // Build steps of 0.25 ms: a slice takes as many as fit in its time, so its step count says how long it ran.
    const slices = async (quiet: boolean) => {
      const { index, calls, done } = scriptedIndex(0, quiet ? 120 : 24, 0.25);
      const stop = buildKeywordsInBackground(index, () => quiet);
      await done;
      stop();
      const builds = calls.filter((c) => c.build);
      // A slice's steps run back to back; the next slice is another task (a timer at least 1 ms later).
      const counts: number[] = [];
      builds.forEach((c, i) => (i > 0 && c.start - builds[i - 1]!.at < 0.5 ? counts[counts.length - 1]!++ : counts.push(1)));
      return counts;
    };
    const forced = await slices(false);
    // At most 1 ms of steps of at least 0.25 ms each, plus the one that crosses the line: never more than 5.
    expect(forced.length).toBeGreaterThanOrEqual(24 / 5);
    expect(Math.max(...forced)).toBeLessThanOrEqual(5);
    // In a pause, slices of 4 ms: the same steps in far fewer tasks.
    const quiet = await slices(true);
    expect(Math.max(...quiet)).toBeGreaterThan(5);
  });
});
