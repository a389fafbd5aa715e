import { describe, expect, it } from 'vitest';
import { buildKeywordsInBackground } from '../../src/search/keyword-warmup.js';
import type { MemoryIndex } from '../../src/search/memory-index.js';

/**
 * The background build of deferred keyword postings (src/search/keyword-warmup.ts)
 * against a scripted index whose every call is recorded: chunks are turned
 * around at once, building waits for a pause in calls, and calls that never
 * pause do not starve it.
 */
function scriptedIndex(turnSteps: number, buildSteps: number) {
  const calls: { at: number; build: boolean; result: 'done' | 'more' | 'paused' }[] = [];
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const index = {
    buildKeywords(_budget: number, build: boolean) {
      let result: 'done' | 'more' | 'paused';
      if (turnSteps > 0) result = --turnSteps > 0 || buildSteps > 0 ? 'more' : 'done';
      else if (!build) result = 'paused';
      else {
        // A build step longer than a slice (4 ms): one step per slice.
        for (const until = performance.now() + 5; performance.now() < until; );
        result = --buildSteps > 0 ? 'more' : 'done';
      }
      calls.push({ at: performance.now(), build, result });
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
});
