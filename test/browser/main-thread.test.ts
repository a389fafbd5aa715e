import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { openDemo, requestSummary } from './demo-page.js';

/**
 * The main thread stays free: the model, the database and the index live in
 * the engine's Web Worker, so ingesting 1,000 memories and running 200
 * recalls from the page does none of that work on the page's thread. The
 * page's own IndexedDB, WebAssembly and Worker messaging are counted by an
 * init script (it runs in the page's frames, not in its workers): every
 * call crosses to the worker, and the page opens no database, runs no
 * transaction and compiles no WebAssembly. (How long the page's tasks took
 * is printed, not asserted: a busy machine stretches any task.)
 */
const MEMORIES = 1000;
const BATCH = 50;
const RECALLS = 200;
const USER = 'long-task-user';

/** What the page's own thread did, counted from before the demo's scripts run. */
interface PageWork {
  idbOpens: string[];
  transactions: number;
  wasm: number;
  toWorkers: number;
}
const COUNT_PAGE_WORK = `
  window.__pageWork = { idbOpens: [], transactions: 0, wasm: 0, toWorkers: 0 };
  const work = window.__pageWork;
  const wrap = (target, name, count) => {
    const real = target[name];
    if (typeof real !== 'function') return;
    target[name] = function (...args) { count(args); return real.apply(this, args); };
  };
  wrap(IDBFactory.prototype, 'open', (args) => work.idbOpens.push(String(args[0])));
  wrap(IDBDatabase.prototype, 'transaction', () => work.transactions++);
  for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) wrap(WebAssembly, name, () => work.wasm++);
  wrap(Worker.prototype, 'postMessage', () => work.toWorkers++);
  wrap(MessagePort.prototype, 'postMessage', () => work.toWorkers++);
`;

const demo = useDemoInChromium();

describe('the main thread while the worker ingests and recalls', () => {
  it(`does no database, model or index work while ${MEMORIES} memories are ingested and ${RECALLS} recalls run: every call goes to the worker`, async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addInitScript({ content: COUNT_PAGE_WORK });
    const session = await openDemo(demo.browser, demo.url, { context });
    // The inspector shows this user, so every change event redraws its Facts tab on the main thread too.
    await session.page.fill('#user-id', USER);
    await session.page.dispatchEvent('#user-id', 'change');

    const result = await session.page.evaluate(
      async ({ MEMORIES, BATCH, RECALLS, USER }) => {
        const { memory } = (window as unknown as { engramDemo: { memory: import('../../src/index.js').Memory } }).engramDemo;
        const work = (window as unknown as { __pageWork: PageWork }).__pageWork;
        const topics = ['hiking in the Alps', 'sourdough baking', 'Rust compilers', 'jazz piano', 'tax returns', 'marathon training', 'sea kayaking', 'chess openings'];
        const longTasks: number[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longTasks.push(entry.duration);
        });
        observer.observe({ type: 'longtask' });
        const before = { ...work, idbOpens: [...work.idbOpens] };

        for (let i = 0; i < MEMORIES; i += BATCH) {
          const batch = Array.from({ length: BATCH }, (_, j) => {
            const n = i + j;
            return { userId: USER, text: `Note ${n}: the user mentioned ${topics[n % topics.length]} on day ${n % 31} (${n % 7 === 0 ? 'important' : 'in passing'}).` };
          });
          await memory.facts.addMany(batch);
        }
        let hits = 0;
        for (let i = 0; i < RECALLS; i++) hits += (await memory.recall(`what about ${topics[i % topics.length]}?`, { userId: USER, k: 5, touch: false })).length;
        const indexed = (await memory.info()).indexed;
        const after = { ...work, idbOpens: [...work.idbOpens] };
        // Long-task entries are delivered asynchronously: give the observer a frame to flush.
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        observer.disconnect();
        return { before, after, longTasks, hits, indexed };
      },
      { MEMORIES, BATCH, RECALLS, USER },
    );

    console.log(`[main-thread] long tasks on the page while the worker ingested and recalled (printed, not asserted): ${result.longTasks.length}${result.longTasks.length ? `, longest ${Math.max(...result.longTasks).toFixed(0)} ms` : ''}`);
    expect(result.indexed).toBe(MEMORIES);
    expect(result.hits).toBe(RECALLS * 5);
    // The page's own thread: no database opened or read, no WebAssembly (the model, the index's kernel), from start to end.
    expect(result.after.idbOpens).toEqual([]);
    expect(result.after.transactions).toBe(0);
    expect(result.after.wasm).toBe(0);
    // Every call of the run went to the worker (one message or more each, on the worker or a port to it).
    expect(result.after.toWorkers - result.before.toWorkers).toBeGreaterThanOrEqual(MEMORIES / BATCH + RECALLS + 1);
    // The inspector did redraw for this user during the run (a page of the newest facts).
    await session.page.locator('#tab-body h2').getByText('Facts (newest 25)').waitFor();
    expect(requestSummary(session.requests).foreignHosts).toEqual([]);
    expect(session.errors).toEqual([]);
    await session.context.close();
  });
});
