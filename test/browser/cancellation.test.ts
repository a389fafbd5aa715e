import { describe, expect, it } from 'vitest';
import { nonLocalHosts, SAFETY_NET_MS, watchPage } from '../support/browser.js';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { openDemoTab } from '../support/test-memory-page.js';

const demo = useDemoInChromium();

type CancelWindow = {
  aborts: string[];
  engramDemo: { open(options: Record<string, unknown>): Promise<import('../../src/index.js').Memory> };
  cancelMemory?: import('../../src/index.js').Memory;
  pendingTurn?: Promise<unknown>;
};

/**
 * Cancellation across the worker (issue 18): a custom provider runs on the
 * page while the engine runs in its Web Worker. When engram stops waiting for
 * a call (the stage-1 timeout, or close()), the signal the page-side provider
 * was given is aborted, so it can stop spending tokens.
 */
describe('AbortSignals reach a page-side provider through the worker', () => {
  it('a timeout and a close() mid-call both abort the provider\'s signal', async () => {
    const context = await demo.browser.newContext();
    const page = await openDemoTab(context, demo.url);
    const watch = watchPage(page);
    const open = (timeoutMs: number) =>
      page.evaluate(async (ms) => {
        const w = window as unknown as CancelWindow;
        w.aborts ??= [];
        // A provider that never answers by itself: only its signal ends a call.
        const llm = (request: { task: string; signal: AbortSignal }) =>
          new Promise((_, reject) => {
            request.signal.addEventListener('abort', () => {
              const reason = request.signal.reason as Error | undefined;
              w.aborts.push(`${request.task}: ${reason?.message ?? String(reason)}`);
              reject(new Error('aborted by engram'));
            });
          });
        w.cancelMemory = await w.engramDemo.open({ name: `cancel-${Math.random()}`, llm, extraction: { timeoutMs: ms } });
      }, timeoutMs);

    await open(300);
    const result = await page.evaluate(() => (window as unknown as CancelWindow).cancelMemory!.observe({ user: 'I moved to Porto', assistant: 'Noted!' }));
    expect(result).toMatchObject({ reason: 'stage1_timeout', facts: { stored: 0 } });
    await page.waitForFunction(() => (window as unknown as CancelWindow).aborts.length === 1, null, { timeout: SAFETY_NET_MS });
    expect(await page.evaluate(() => (window as unknown as CancelWindow).aborts)).toEqual([expect.stringMatching(/^extract: .*timed out/)]);
    await page.evaluate(() => (window as unknown as CancelWindow).cancelMemory!.close());

    await open(600_000);
    await page.evaluate(() => {
      const w = window as unknown as CancelWindow;
      w.pendingTurn = w.cancelMemory!.observe({ user: 'I moved to Lisbon', assistant: 'Noted!' }).catch((e: Error) => e.name);
    });
    await page.waitForTimeout(200);
    await page.evaluate(() => (window as unknown as CancelWindow).cancelMemory!.close());
    await page.waitForFunction(() => (window as unknown as CancelWindow).aborts.length === 2, null, { timeout: SAFETY_NET_MS });
    expect((await page.evaluate(() => (window as unknown as CancelWindow).aborts))[1]).toMatch(/^extract: .*closing/);
    // The turn itself settles (resolved with a reason, or a typed ClosedError), never hangs.
    const settled = await page.evaluate(() => (window as unknown as CancelWindow).pendingTurn);
    expect(typeof settled === 'object' ? (settled as { reason?: string }).reason : settled).toMatch(/stage1_|ClosedError/);

    expect(nonLocalHosts(watch.requests)).toEqual([]);
    await context.close();
  });

  it('observe({ signal }) through the worker: the app\'s abort reaches the page-side provider, the turn rejects with AbortError and writes nothing', async () => {
    const context = await demo.browser.newContext();
    const page = await openDemoTab(context, demo.url);
    const watch = watchPage(page);
    const outcome = await page.evaluate(async () => {
      const w = window as unknown as CancelWindow;
      const seen: string[] = [];
      let called!: () => void;
      const providerCalled = new Promise<void>((resolve) => (called = resolve));
      let aborted!: () => void;
      const providerAborted = new Promise<void>((resolve) => (aborted = resolve));
      const llm = (request: { task: string; signal: AbortSignal }) =>
        new Promise((_, reject) => {
          called();
          request.signal.addEventListener('abort', () => {
            seen.push(`${request.task}: ${(request.signal.reason as Error)?.message}`);
            aborted();
            reject(new Error('aborted by engram'));
          });
        });
      const memory = await w.engramDemo.open({ name: `abort-${Math.random()}`, llm });
      const controller = new AbortController();
      const turn = memory.observe({ user: 'I moved to Porto', assistant: 'Noted!' }, { signal: controller.signal }).then(
        () => null,
        (e: { name: string; code: string; message: string }) => ({ name: e.name, code: e.code, message: e.message }),
      );
      await providerCalled;
      controller.abort(new Error('the user left'));
      const error = await turn;
      // The abort crosses back from the worker to the provider's listener here.
      await providerAborted;
      const facts = await memory.facts.list({});
      const { events, jobs } = await memory.activity();
      await memory.close();
      return { error, seen, facts: facts.length, events: events.length, jobs: jobs.length };
    });
    expect(outcome).toEqual({
      error: { name: 'AbortError', code: 'ABORTED', message: expect.stringContaining('the user left') },
      seen: ['extract: the user left'],
      facts: 0,
      events: 0,
      jobs: 0,
    });
    expect(nonLocalHosts(watch.requests)).toEqual([]);
    await context.close();
  });
});
