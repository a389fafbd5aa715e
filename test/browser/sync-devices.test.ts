import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { createSyncHandler, pgliteSyncStore, toNodeHandler } from '../../src/server.js';
import { BARE_PAGE_DIR, CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/browser.js';
import { bearerSpaces } from '../support/sync-hub.js';
import { openDemoTab, openTestMemory, withTestMemory } from '../support/test-memory-page.js';

/**
 * Two devices in Chromium: two persistent browser profiles (each its own
 * IndexedDB, its own engine in a Web Worker), syncing through a hub in Node
 * (createSyncHandler on PGlite) served on the page's origin over loopback.
 * Each edits while offline (`context.setOffline`); after reconnecting both
 * hold the same export and answer recall the same.
 */
let db: PGlite;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let root: string;
const contexts: BrowserContext[] = [];
const pages: Page[] = [];

beforeAll(async () => {
  db = await PGlite.create();
  const hub = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ 'user-token': 'space-browser' }) });
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR, sync: toNodeHandler(hub) });
  root = mkdtempSync(join(tmpdir(), 'engram-sync-profiles-'));
  for (const device of ['phone', 'laptop']) {
    const context = await chromium.launchPersistentContext(join(root, device), { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    contexts.push(context);
    const page = await openDemoTab(context, server.url);
    await openTestMemory(page, {
      name: 'synced',
      sync: { remote: { url: `${server.url}sync`, headers: { authorization: 'Bearer user-token' }, retries: 0 }, key: { secret: 'a secret both devices were given, 32+ bytes' }, space: 'space-browser', autoStart: false },
    });
    pages.push(page);
  }
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await server?.close();
  await db?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const exportLines = (page: Page) =>
  withTestMemory(page, async (memory) => (await (await memory.export()).text()).trim().split('\n').slice(1, -1).sort());
const round = (page: Page) => withTestMemory(page, async (memory) => memory.sync.now().then((r) => ({ ok: true as const, ...r }), (e: { code: string; reason?: string }) => ({ ok: false as const, code: e.code, reason: e.reason })));

it('two browser profiles edit offline, reconnect, and converge to the same export and recall', async () => {
  const [phone, laptop] = pages as [Page, Page];
  for (const context of contexts) await context.setOffline(true);
  await withTestMemory(phone, async (memory) => {
    await memory.facts.add({ userId: 'ana', text: 'Ana keeps her bike in the basement' });
    await memory.profile.update('ana', { city: 'Porto' });
  });
  await withTestMemory(laptop, async (memory) => {
    await memory.episodes.add({ userId: 'ana', text: 'Planned the cycling trip along the Douro river' });
    await memory.profile.update('ana', { name: 'Ana' });
  });
  // Offline, a round is a typed network error and changes nothing.
  expect(await round(phone)).toMatchObject({ ok: false, code: 'SYNC', reason: 'network' });
  expect(await withTestMemory(phone, async (memory) => memory.sync.status.pending)).toBe(2);

  for (const context of contexts) await context.setOffline(false);
  // Rounds in turn until a whole pass moves nothing (a profile merged per field takes one more: the join is pushed back).
  for (let pass = 0, moved = 1; moved > 0; pass++) {
    expect(pass, 'converged within 6 passes').toBeLessThan(6);
    moved = 0;
    for (const page of [phone, laptop]) {
      const result = await round(page);
      expect(result).toMatchObject({ ok: true });
      if (result.ok) moved += result.pushed + result.applied;
    }
  }
  expect(await exportLines(laptop)).toEqual(await exportLines(phone));
  const recall = (page: Page) => withTestMemory(page, async (memory) => (await memory.recall('where is the bike', { userId: 'ana', k: 3, touch: false })).map((h) => h.memory.id));
  expect(await recall(laptop)).toEqual(await recall(phone));
  expect(await withTestMemory(laptop, async (memory) => memory.profile.get('ana'))).toMatchObject({ name: 'Ana', city: 'Porto' });
});
