import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium, SAFETY_NET_MS, watchPage } from '../support/browser.js';
import { waitDemoReady } from '../support/test-memory-page.js';

/**
 * The demo as a user meets it on a phone (issue 19): a 420 px wide screen
 * without sideways scrolling, a header count that follows the store, Data
 * tab messages that stay after the redraw an action causes, an Import with
 * no file that says so, and a category for hand-added facts.
 */
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;

beforeAll(async () => {
  server = await startDemoServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
const text = (page: Page, selector: string) => page.locator(selector).innerText();

/** Waits (bounded) until the header shows `n` memories. */
const countIs = (page: Page, n: number) =>
  page.waitForFunction((n) => document.querySelector('#count')?.textContent === `${n} ${n === 1 ? 'memory' : 'memories'}`, n, { timeout: SAFETY_NET_MS });

async function addFact(page: Page, fact: string, category = 'preference'): Promise<void> {
  await page.selectOption('#add-kind', 'fact');
  await page.selectOption('#add-category', category);
  await page.fill('#add-text', fact);
  await page.click('#add-button');
}

describe('the demo on a phone-sized screen (Chromium, 420 × 860)', () => {
  it('fits the screen, counts memories as they are added, and keeps its Data tab messages', async () => {
    const context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(server.url);
    await waitDemoReady(page);
    expect(await pageWidth(page)).toBeLessThanOrEqual(420);
    await page.waitForFunction(() => /^\d+ memor(y|ies)$/.test(document.querySelector('#count')?.textContent ?? ''), null, { timeout: SAFETY_NET_MS });
    const before = Number((await text(page, '#count')).split(' ')[0]);

    // The header count follows the store.
    await addFact(page, 'The user is vegetarian and cooks on weekends');
    await countIs(page, before + 1);
    // A long unbroken word in a fact does not widen the page.
    await addFact(page, `The user's wifi password hint is ${'x'.repeat(300)}`, 'other');
    await countIs(page, before + 2);
    expect(await text(page, '#tab-body')).toContain('vegetarian');
    expect(await pageWidth(page)).toBeLessThanOrEqual(420);
    // The category chosen in the Add panel is the one stored.
    const stored = await page.evaluate(async () => {
      const demo = (window as unknown as { engramDemo: { memory: { facts: { list(q: object): Promise<{ text: string; category: string }[]> } } } }).engramDemo;
      return (await demo.memory.facts.list({ userId: 'demo-user', limit: 100 })).find((f) => f.text.includes('vegetarian'))?.category;
    });
    expect(stored).toBe('preference');

    // Data tab: Import with no file says so, and the message outlives the redraw a store change causes.
    await page.click('#tab-data');
    await page.click('#import');
    await page.waitForFunction(() => document.querySelector('#data-result')?.textContent?.startsWith('Choose a file to import first'), null, { timeout: SAFETY_NET_MS });
    await addFact(page, 'The user runs on Tuesday mornings');
    await countIs(page, before + 3);
    await page.waitForTimeout(200); // past the debounced redraw
    expect(await text(page, '#data-result')).toMatch(/^Choose a file to import first/);
    expect(await pageWidth(page)).toBeLessThanOrEqual(420);

    await page.click('#persist');
    await page.waitForFunction(() => /persistent storage|Storage is persistent/.test(document.querySelector('#data-result')?.textContent ?? ''), null, { timeout: SAFETY_NET_MS });
    await page.waitForTimeout(200);
    expect(await text(page, '#data-result')).toMatch(/^(Storage is persistent\.|The browser declined persistent storage\.)$/);
    expect(watch.errors).toEqual([]);
    await context.close();
  }, SAFETY_NET_MS);
});
