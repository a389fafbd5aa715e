import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium, nonLocalHosts, SAFETY_NET_MS, watchPage } from '../support/browser.js';
import { openTestMemory, waitDemoReady, withTestMemory } from '../support/test-memory-page.js';

/**
 * The demo as an offline PWA (issue 19): after one visit online, its service
 * worker holds the app's files and engram holds the model files (Cache API),
 * so with the network gone the page reloads, starts engram on the offline
 * model in its worker, and adds and recalls memories that are still there
 * after another offline reload.
 */
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;

beforeAll(async () => {
  server = await startDemoServer();
  browser = await launchChromium();
  context = await browser.newContext();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('offline PWA (Chromium)', () => {
  it('works offline after its first visit: reload, add and recall, reload again', async () => {
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(server.url);
    await waitDemoReady(page);
    // The service worker is installed (its precache written) and controls the page.
    const cacheNames = await page.evaluate(async (safetyNetMs) => {
      const controlled = async () => {
        await navigator.serviceWorker.ready;
        if (!navigator.serviceWorker.controller) await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
        return true;
      };
      // Bounded, so a page without a service worker fails here with a reason (a safety net, never a speed requirement).
      const inTime = await Promise.race([controlled(), new Promise<false>((resolve) => setTimeout(() => resolve(false), safetyNetMs))]);
      return inTime ? (await globalThis.caches.keys()).sort() : ['no service worker took control'];
    }, SAFETY_NET_MS - 10_000);
    expect(cacheNames).toEqual(expect.arrayContaining(['engram-models', expect.stringMatching(/^engram-demo-[0-9a-f]{12}$/)]));
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.active?.scriptURL)).toBe(`${server.url}sw.js`);
    // The manifest that makes it installable is served and names the start page.
    expect(await page.evaluate(async () => (await (await fetch('/manifest.webmanifest')).json()).start_url)).toBe('/');

    await context.setOffline(true);
    try {
      await page.reload();
      await waitDemoReady(page);
      await openTestMemory(page, { name: 'pwa-offline' });
      const hits = await withTestMemory(page, async (memory) => {
        await memory.facts.add({ text: 'The user plays the cello in an amateur orchestra' });
        await memory.facts.add({ text: 'The user keeps bees on the roof of their flat' });
        return (await memory.recall('which musical instrument?')).map((h) => h.memory.text);
      });
      expect(hits[0]).toBe('The user plays the cello in an amateur orchestra');
      // The model files came from engram's cache, not the network (there is none).
      expect(await page.evaluate(async () => (await (await globalThis.caches.open("engram-models")).keys()).map((r) => new URL(r.url).pathname).sort())).toEqual([
        '/models/minishlab/potion-base-4M-int8/config.json',
        '/models/minishlab/potion-base-4M-int8/onnx/model_quantized.onnx',
        '/models/minishlab/potion-base-4M-int8/tokenizer.json',
        '/models/minishlab/potion-base-4M-int8/tokenizer_config.json',
      ]);

      await page.reload();
      await waitDemoReady(page);
      await openTestMemory(page, { name: 'pwa-offline' });
      const again = await withTestMemory(page, async (memory) => (await memory.recall('bees')).map((h) => h.memory.text));
      expect(again[0]).toBe('The user keeps bees on the roof of their flat');
      await withTestMemory(page, (memory) => memory.close());
    } finally {
      await context.setOffline(false);
    }
    expect(nonLocalHosts(watch.requests)).toEqual([]);
  }, SAFETY_NET_MS);
});
