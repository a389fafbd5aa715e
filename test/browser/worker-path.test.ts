import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { nonLocalHosts, watchPage, SAFETY_NET_MS } from '../support/browser.js';

const demo = useDemoInChromium();

describe('the worker path in Chromium', () => {
  it('creates a memory in a Web Worker, adds and recalls, reloads, and still recalls', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(demo.url);
    await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });

    const recall = (query: string) =>
      page.evaluate(async (q) => {
        const { memory } = (window as unknown as { engramDemo: { memory: import('../../src/index.js').Memory } }).engramDemo;
        return (await memory.recall(q, { userId: 'browser-test', touch: false })).map((h) => h.memory.text);
      }, query);

    await page.evaluate(async () => {
      const { memory } = (window as unknown as { engramDemo: { memory: import('../../src/index.js').Memory } }).engramDemo;
      await memory.facts.add({ userId: 'browser-test', text: 'The user keeps bees on the roof of their flat' });
      await memory.facts.add({ userId: 'browser-test', text: 'The user plays the cello in an amateur orchestra' });
      await memory.facts.add({ userId: 'browser-test', text: 'The user is allergic to penicillin' });
    });
    expect((await recall('beekeeping hobby'))[0]).toBe('The user keeps bees on the roof of their flat');

    // Typed errors survive the worker boundary.
    const error = await page.evaluate(async () => {
      const { memory } = (window as unknown as { engramDemo: { memory: import('../../src/index.js').Memory } }).engramDemo;
      return memory.facts.get('no-such-fact').catch((e: { name: string; code: string; id: string }) => ({ name: e.name, code: e.code, id: e.id }));
    });
    expect(error).toEqual({ name: 'NotFoundError', code: 'NOT_FOUND', id: 'no-such-fact' });

    // The model and the database live in the worker: the page itself never loaded transformers.js.
    const pageResources = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    expect(pageResources.some((name) => name.includes('transformers'))).toBe(false);
    expect(pageResources.some((name) => name.includes('engine.worker'))).toBe(true);

    await page.reload();
    await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });
    expect((await recall('beekeeping hobby'))[0]).toBe('The user keeps bees on the roof of their flat');
    expect((await recall('which musical instrument?'))[0]).toBe('The user plays the cello in an amateur orchestra');

    expect(nonLocalHosts(watch.requests)).toEqual([]);
    expect(watch.errors).toEqual([]);
    await context.close();
  });
});
