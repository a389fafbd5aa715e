import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { openDemo, requestSummary } from './demo-page.js';

/**
 * The main thread stays free: the model, the database and the index live in
 * the engine's Web Worker, so ingesting 1,000 memories and running 200 recalls
 * from the page must not block it. A PerformanceObserver for `longtask`
 * records every task over 50 ms on the page's thread, only during that phase
 * (after the page is ready, so start-up work is not counted).
 */
const MEMORIES = 1000;
const BATCH = 50;
const RECALLS = 200;
const USER = 'long-task-user';

const demo = useDemoInChromium();

describe('the main thread while the worker ingests and recalls', () => {
  it(`sees no long task while ${MEMORIES} memories are ingested and ${RECALLS} recalls run`, async () => {
    const session = await openDemo(demo.browser, demo.url);
    // The inspector shows this user, so every change event redraws its Facts tab on the main thread too.
    await session.page.fill('#user-id', USER);
    await session.page.dispatchEvent('#user-id', 'change');

    const result = await session.page.evaluate(
      async ({ MEMORIES, BATCH, RECALLS, USER }) => {
        const { memory } = (window as unknown as { engramDemo: { memory: import('../../src/index.js').Memory } }).engramDemo;
        const topics = ['hiking in the Alps', 'sourdough baking', 'Rust compilers', 'jazz piano', 'tax returns', 'marathon training', 'sea kayaking', 'chess openings'];
        // First prove this browser reports long tasks at all: an 80 ms busy loop must be seen.
        const calibration: number[] = [];
        const probe = new PerformanceObserver((list) => calibration.push(...list.getEntries().map((e) => e.duration)));
        probe.observe({ type: 'longtask' });
        await new Promise((resolve) => setTimeout(resolve, 50)); // the observer sees tasks that start after it
        const until = performance.now() + 80;
        while (performance.now() < until) {
          // busy on purpose
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        probe.disconnect();

        const longTasks: number[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longTasks.push(entry.duration);
        });
        observer.observe({ type: 'longtask' });
        await new Promise((resolve) => setTimeout(resolve, 50));

        const started = performance.now();
        for (let i = 0; i < MEMORIES; i += BATCH) {
          const batch = Array.from({ length: BATCH }, (_, j) => {
            const n = i + j;
            return { userId: USER, text: `Note ${n}: the user mentioned ${topics[n % topics.length]} on day ${n % 31} (${n % 7 === 0 ? 'important' : 'in passing'}).` };
          });
          await memory.facts.addMany(batch);
        }
        const ingestMs = performance.now() - started;
        const recallStarted = performance.now();
        let hits = 0;
        for (let i = 0; i < RECALLS; i++) hits += (await memory.recall(`what about ${topics[i % topics.length]}?`, { userId: USER, k: 5, touch: false })).length;
        const recallMs = performance.now() - recallStarted;
        // Long-task entries are delivered asynchronously: give the observer a frame to flush.
        await new Promise((resolve) => setTimeout(resolve, 200));
        observer.disconnect();
        return { calibration, longTasks, ingestMs, recallMs, hits, indexed: (await memory.info()).indexed };
      },
      { MEMORIES, BATCH, RECALLS, USER },
    );

    const longest = result.longTasks.length ? Math.max(...result.longTasks) : 0;
    console.log(
      `[main-thread] ${MEMORIES} memories ingested in ${result.ingestMs.toFixed(0)} ms (batches of ${BATCH}), ${RECALLS} recalls in ${result.recallMs.toFixed(0)} ms; ` +
        `long tasks on the page: ${result.longTasks.length}, longest ${longest.toFixed(0)} ms`,
    );
    expect(result.calibration.length, 'the 80 ms busy loop was reported as a long task').toBeGreaterThan(0);
    expect(result.indexed).toBe(MEMORIES);
    expect(result.hits).toBe(RECALLS * 5);
    expect(result.longTasks, `long tasks (ms): ${result.longTasks.map((d) => d.toFixed(0)).join(', ')}`).toEqual([]);
    // The inspector did redraw for this user during the run (a page of the newest facts).
    await session.page.locator('#tab-body h2').getByText('Facts (newest 25)').waitFor();
    expect(requestSummary(session.requests).foreignHosts).toEqual([]);
    expect(session.errors).toEqual([]);
    await session.context.close();
  });
});
