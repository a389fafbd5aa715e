import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { nonLocalHosts, watchPage } from '../support/browser.js';
import { waitDemoReady } from '../support/test-memory-page.js';
import type { MemoryOptions } from '../../src/index.js';

const demo = useDemoInChromium();

/** Short enough to keep the test quick, long enough for a loaded machine to fetch a tiny script. */
const HANDSHAKE_MS = 5_000;

type Outcome = { settled: 'resolved' } | { settled: 'rejected'; name: string; code: string; reason: string; url: string | undefined; message: string };

let context: BrowserContext;
let page: Page;
let watch: ReturnType<typeof watchPage>;
// One page for every case: each opens its own memory, so they do not share state.
beforeAll(async () => {
  context = await demo.browser.newContext();
  page = await context.newPage();
  watch = watchPage(page);
  await page.goto(demo.url);
  await waitDemoReady(page);
});
afterAll(async () => {
  // A failed start-up leaves nothing behind that touches the network.
  expect(nonLocalHosts(watch.requests)).toEqual([]);
  await context?.close();
});

/** Calls createMemory in the demo page with a worker script made of `source` (a blob URL), or at `url`. */
async function startWith(worker: { url: string } | { source: string }): Promise<Outcome> {
  const outcome = await page.evaluate(
    async ({ worker, timeout }) => {
      const w = window as unknown as { engramDemo: { open(o: Omit<MemoryOptions, 'embedder'>): Promise<{ close(): Promise<void> }> } };
      const url = 'url' in worker ? worker.url : URL.createObjectURL(new Blob([worker.source], { type: 'text/javascript' }));
      try {
        const memory = await w.engramDemo.open({ name: `start-${Math.random()}`, worker: url, workerStartTimeoutMs: timeout });
        await memory.close();
        return { settled: 'resolved' } as const;
      } catch (e) {
        const error = e as Error & { code: string; reason: string; url?: string };
        return {
          settled: 'rejected' as const,
          name: error.name,
          code: error.code,
          reason: error.reason,
          url: error.url,
          message: error.message,
        };
      }
    },
    { worker, timeout: HANDSHAKE_MS },
  );
  return outcome as Outcome;
}

describe('worker start-up always settles (Chromium)', () => {
  it('a worker URL that answers 404 rejects with WorkerStartError (reason "load") carrying the URL', async () => {
    const url = new URL('/no-such-engine.worker.js', demo.url).href;
    const outcome = await startWith({ url });
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'WorkerStartError', code: 'WORKER_START', reason: 'load', url });
  });

  it('a worker that throws at top level rejects with WorkerStartError whose message carries the thrown message', async () => {
    const outcome = await startWith({ source: 'throw new Error("top-level boom");' });
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'WorkerStartError', code: 'WORKER_START', reason: 'load' });
    expect((outcome as { message: string }).message).toContain('top-level boom');
  });

  it('a worker with a syntax error rejects with WorkerStartError', async () => {
    const outcome = await startWith({ source: 'export const = ;' });
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'WorkerStartError', reason: 'load' });
  });

  it('a script that never answers the handshake rejects with reason "timeout" after workerStartTimeoutMs', async () => {
    const outcome = await startWith({ source: 'self.onmessage = () => {};' });
    expect(outcome).toMatchObject({ settled: 'rejected', name: 'WorkerStartError', reason: 'timeout' });
    expect((outcome as { message: string }).message).toContain(`${HANDSHAKE_MS} ms`);
  });
});
