import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { BARE_PAGE_DIR, nonLocalHosts, watchPage, SAFETY_NET_MS } from '../support/browser.js';

const demo = useDemoInChromium({ pageDir: BARE_PAGE_DIR });

describe('worker: false in a page', () => {
  it('runs the engine on the page with the browser\'s own IndexedDB and key ranges', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(demo.url);
    await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });

    const found = await page.evaluate(async () => {
      const demo = (window as unknown as { engramDemo: { open(o: unknown): Promise<import('../../src/index.js').Memory> } }).engramDemo;
      const memory = await demo.open({ name: 'in-page-test', worker: false });
      await memory.facts.add({ userId: 'in-page', text: 'The user grows tomatoes on the balcony' });
      await memory.facts.add({ userId: 'in-page', text: 'The user commutes by bicycle' });
      // list() with a time range uses IDBKeyRange, which Dexie needs from the page's own globals.
      const listed = await memory.facts.list({ userId: 'in-page', since: 0 });
      const hits = await memory.recall('gardening', { userId: 'in-page', touch: false });
      await memory.close();
      return { listed: listed.length, top: hits[0]?.memory.text };
    });
    expect(found).toEqual({ listed: 2, top: 'The user grows tomatoes on the balcony' });
    expect(nonLocalHosts(watch.requests)).toEqual([]);
    await context.close();
  });
});
