import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildKeywordsInBackground } from '../../src/index-sync/keyword-warmup.js';

/**
 * The background build of deferred keyword postings (src/index-sync/keyword-warmup.ts)
 * against a scripted index whose every call is recorded: chunks are turned
 * around at once, building waits for a pause in calls, and calls that never
 * pause do not starve it. Time is virtual: vitest's fake timers run the
 * build's timers, and the clock it is given is the fake time plus the time
 * its build steps "took" (each step moves it on by its length), so every
 * figure below is exact whatever the machine is doing.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Call {
  /** Virtual ms when the call started and ended. */
  start: number;
  at: number;
  /** Which task (timer callback) made the call: consecutive calls in one task are one slice. */
  task: number;
  build: boolean;
  result: 'done' | 'more' | 'paused';
}

function scriptedIndex(turnSteps: number, buildSteps: number, stepMs = 5) {
  let busy = 0;
  const clock = () => Date.now() + busy;
  const calls: Call[] = [];
  let task = 0;
  let inTask = false;
  let finished = false;
  const index = {
    buildKeywords(_budget: number, build: boolean) {
      // A microtask runs once the task that made this call is over: the next call after it is another task.
      if (!inTask) {
        task++;
        inTask = true;
        queueMicrotask(() => (inTask = false));
      }
      const start = clock();
      let result: 'done' | 'more' | 'paused';
      if (turnSteps > 0) result = --turnSteps > 0 || buildSteps > 0 ? 'more' : 'done';
      else if (!build) result = 'paused';
      else {
        busy += stepMs;
        result = --buildSteps > 0 ? 'more' : 'done';
      }
      calls.push({ start, at: clock(), task, build, result });
      if (result === 'done') finished = true;
      return result;
    },
  };
  /** Runs the build's timers until it is done. */
  const run = async (isQuiet: () => boolean) => {
    const stop = buildKeywordsInBackground(index, isQuiet, clock);
    while (!finished) await vi.advanceTimersToNextTimerAsync();
    stop();
    return { calls };
  };
  return { run };
}

describe('building deferred keyword postings in the background', () => {
  it('builds at once while calls are quiet', async () => {
    const scripted = scriptedIndex(3, 5);
    const { calls } = await scripted.run(() => true);
    expect(calls.map((c) => c.result)).toEqual(['more', 'more', 'more', 'more', 'more', 'more', 'more', 'done']);
    expect(calls.every((c) => c.build)).toBe(true);
    // Slice after slice with no poll between them: a 0 ms timer (1 ms on the fake clock, as in Node), never a 25 ms wait.
    expect(new Set(calls.map((c) => c.task)).size).toBe(5);
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.start - calls[i - 1]!.at).toBeLessThanOrEqual(1);
  });

  it('turns chunks around while calls keep coming, waits for a pause to build, and builds one slice per poll after a second without one', async () => {
    const scripted = scriptedIndex(3, 4);
    const { calls } = await scripted.run(() => false);
    const started = calls[0]!.start;
    const turned = calls.slice(0, 3);
    const builds = calls.filter((c) => c.build && c.at > turned[2]!.at);
    // The turning around went on regardless; then only paused looks until a second had passed.
    expect(turned.map((c) => c.result)).toEqual(['more', 'more', 'more']);
    expect(calls.slice(3, -builds.length).every((c) => !c.build && c.result === 'paused')).toBe(true);
    expect(builds).toHaveLength(4);
    expect(builds[0]!.at - started).toBeGreaterThanOrEqual(1000);
    // ...and not much later: the first poll past the second builds.
    expect(builds[0]!.start - started).toBeLessThanOrEqual(1000 + 25);
    // One slice per poll, not back to back: each build is its own task, a poll (25 ms) after the one before.
    expect(new Set(builds.map((c) => c.task)).size).toBe(builds.length);
    for (let i = 1; i < builds.length; i++) expect(builds[i]!.start - builds[i - 1]!.at).toBeGreaterThanOrEqual(25);
  });

  it('takes short slices while calls keep coming (a call that arrives waits for the slice), longer ones in a pause', async () => {
    // Build steps of 0.25 ms: a slice takes as many as fit in its time, so its step count says how long it ran.
    const slices = async (quiet: boolean) => {
      const { calls } = await scriptedIndex(0, quiet ? 120 : 24, 0.25).run(() => quiet);
      const builds = calls.filter((c) => c.build);
      const perTask = new Map<number, number>();
      for (const c of builds) perTask.set(c.task, (perTask.get(c.task) ?? 0) + 1);
      return [...perTask.values()];
    };
    const forced = await slices(false);
    // A forced slice runs until 1 ms of steps has passed: 4 steps of 0.25 ms (the last one crosses the line).
    expect(forced.length).toBe(6);
    expect(Math.max(...forced)).toBe(4);
    // In a pause, slices of 4 ms: 16 steps each, the same steps in far fewer tasks.
    const quiet = await slices(true);
    expect(Math.max(...quiet)).toBe(16);
    expect(quiet).toHaveLength(8);
  });
});
