import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoHub, type DemoHub } from '../../demo/hub.js';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium, nonLocalHosts, SAFETY_NET_MS } from '../support/browser.js';
import { factTexts, openDemo, openTab, withMemory, type DemoSession } from './demo-page.js';

/**
 * The demo as two devices side by side: two browser contexts (two
 * profiles) open the demo as `?device=phone` and `?device=laptop`, syncing
 * through the demo server's hub (PGlite). A fact added in one window shows
 * in the other's inspector and recall; the sync panel shows the status,
 * the pending changes and the last error (here a network error while the
 * phone is offline, cleared by the next round).
 */
let browser: Browser;
let hub: DemoHub;
let server: Awaited<ReturnType<typeof startDemoServer>>;
beforeAll(async () => {
  hub = await startDemoHub();
  server = await startDemoServer({ hub });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await hub?.close();
});

const text = (page: Page, id: string) => page.locator(`#${id}`).textContent();
/** Waits until the sync panel's cell `id` satisfies `test` (the panel follows memory.live({ sync: {} })). */
const waitCell = (page: Page, id: string, pattern: string) =>
  page.waitForFunction(({ id, pattern }) => new RegExp(pattern).test(document.getElementById(id)?.textContent ?? ''), { id, pattern }, { timeout: SAFETY_NET_MS });
const waitFact = (session: DemoSession, fact: string) => session.page.locator('#facts-table td.fact-text', { hasText: fact }).waitFor({ timeout: SAFETY_NET_MS });
const addFact = async (session: DemoSession, fact: string) => {
  await session.page.fill('#add-text', fact);
  await session.page.click('#add-button');
  await waitFact(session, fact);
};

it('two windows as two devices: a fact added in one shows in the other, and the sync panel shows status, pending changes and the last error', async () => {
  const phone = await openDemo(browser, `${server.url}?device=phone`);
  const laptop = await openDemo(browser, `${server.url}?device=laptop`);
  for (const { page } of [phone, laptop]) {
    expect(await page.title()).toMatch(/^(phone|laptop) · engram demo/);
    // Each is a device of its own, synced once, with nothing pending and no error.
    await waitCell(page, 'sync-last', '^\\d\\d:\\d\\d:\\d\\d UTC$');
    expect(await text(page, 'sync-device')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(await text(page, 'sync-pending')).toBe('0');
    expect(await text(page, 'sync-error')).toBe('none');
    expect(['idle', 'syncing']).toContain(await text(page, 'sync-state'));
    await openTab(page, 'Facts', /Facts|No facts yet/);
  }
  expect(await text(phone.page, 'sync-device')).not.toBe(await text(laptop.page, 'sync-device'));

  // Written on the phone, seen in the laptop's inspector and recall.
  await addFact(phone, 'The user keeps a spare key under the blue flowerpot');
  await waitFact(laptop, 'The user keeps a spare key under the blue flowerpot');
  const recalled = await withMemory(laptop.page, async (memory, query) => (await memory.recall(query, { userId: 'demo-user', k: 1, touch: false })).map((hit) => hit.memory.text), 'where is the spare key?');
  expect(recalled).toEqual(['The user keeps a spare key under the blue flowerpot']);

  // Offline, the phone's change waits: one pending, and the round's network error in the panel.
  await phone.context.setOffline(true);
  await addFact(phone, 'The user is learning to play the banjo');
  await waitCell(phone.page, 'sync-pending', '^1$');
  await phone.page.click('#sync-now');
  await waitCell(phone.page, 'sync-error', '^network: ');
  // The background loop retries with backoff: 'error' between its attempts, the error kept on the panel meanwhile.
  await waitCell(phone.page, 'sync-state', '^error$');
  await phone.page.locator('#sync-result', { hasText: 'Sync failed' }).waitFor({ timeout: SAFETY_NET_MS });

  // Back online: the next round pushes it, the error clears, and the laptop has it.
  await phone.context.setOffline(false);
  await phone.page.click('#sync-now');
  await waitCell(phone.page, 'sync-pending', '^0$');
  await waitCell(phone.page, 'sync-error', '^none$');
  await waitFact(laptop, 'The user is learning to play the banjo');
  expect((await factTexts(laptop.page)).sort()).toEqual((await factTexts(phone.page)).sort());

  expect(nonLocalHosts([...phone.requests, ...laptop.requests])).toEqual([]);
  const unexpected = (errors: string[]) => errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e));
  expect(unexpected(phone.errors)).toEqual([]);
  expect(unexpected(laptop.errors)).toEqual([]);
});

it('without ?device the demo keeps its single store and offers the two device links', async () => {
  const plain = await openDemo(browser, server.url);
  expect(await plain.page.locator('#sync-off a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).search))).toEqual(['?device=phone', '?device=laptop']);
  expect(await withMemory(plain.page, async (memory) => memory.sync.status.state, undefined)).toBe('stopped');
});
