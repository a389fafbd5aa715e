import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium, SAFETY_NET_MS } from '../support/browser.js';
import { consistencyProblems, openTestMemory, waitDemoReady, readRawDatabase, withTestMemory } from '../support/test-memory-page.js';

/**
 * Full disk in Chromium: the origin's quota is made small (DevTools protocol,
 * Storage.overrideQuotaForOrigin), then episodes are written until IndexedDB
 * refuses. engram must either evict by its policy (oldest unpinned first) and
 * retry once, or reject with a typed QuotaError that wrote nothing; the store
 * stays consistent and readable throughout.
 */
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;
const DB = `full-disk-${Date.now()}`;

beforeAll(async () => {
  server = await startDemoServer();
  browser = await launchChromium();
  // The demo's offline service worker precaches the app beside the model while it starts: its share of the small
  // quota varied with timing, and some starts were refused (QuotaError before the test's own memory opened).
  context = await browser.newContext({ serviceWorkers: 'block' });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('full disk (Chromium, small quota)', () => {
  it('evicts by policy and retries, or rejects with QuotaError; the store stays consistent and readable', async () => {
    const page = await context.newPage();
    const origin = new URL(server.url).origin;
    const cdp = await context.newCDPSession(page);
    // Chromium applies a quota override only to storage the origin opens after it: set it before the page loads.
    // The demo's own database and the model files in Cache Storage take a few MB; this leaves about 3 MB for ours.
    const quota = 8_000_000;
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: quota });
    await page.goto(server.url);
    await waitDemoReady(page);
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
    // Dedup off: the filler episodes below share their wording and would otherwise replace each other instead of filling the disk.
    await openTestMemory(page, { name: DB, lifecycle: { dedupThreshold: 0 } });

    // A few episodes to start with, one pinned (eviction never takes pinned ones).
    await withTestMemory(page, async (memory) => {
      await memory.episodes.add({ userId: 'disk', text: 'Pinned: the user prefers metric units everywhere', pinned: true });
      for (let i = 0; i < 5; i++) await memory.episodes.add({ userId: 'disk', text: `Warm-up episode ${i} about planning the garden beds` });
    });

    const outcome = await withTestMemory(page, async (memory) => {
      const quotaEvictions: string[] = [];
      memory.on('eviction', (e) => {
        if (e.reason === 'quota') quotaEvictions.push(...e.evicted);
      });
      const stored: string[] = [];
      const rejected: { text: string; name: string; code: string; message: string }[] = [];
      // Random text does not compress, so every episode really costs its size on disk.
      const filler = (n: number) => Array.from({ length: n }, () => Math.random().toString(36).slice(2)).join(' ');
      for (let i = 0; i < 60 && rejected.length < 3; i++) {
        const text = `Large episode ${i} about the storage experiment`;
        try {
          stored.push((await memory.episodes.add({ userId: 'disk', text, approach: filler(7000).slice(0, 90_000) })).id);
        } catch (error) {
          const e = error as { name: string; code: string; message: string };
          rejected.push({ text, name: e.name, code: e.code, message: e.message });
        }
      }
      const listed = await memory.episodes.list({ userId: 'disk', limit: 1000 });
      const recalled = await memory.recall('metric units', { userId: 'disk', touch: false });
      return {
        stored,
        rejected,
        quotaEvictions,
        listedTexts: listed.map((e) => e.text),
        listedIds: listed.map((e) => e.id),
        pinnedRecalled: recalled.some((h) => h.memory.text.startsWith('Pinned')),
        indexed: (await memory.info()).indexed,
      };
    });

    // The disk filled up: engram either made room by its policy or refused with a typed error.
    expect(outcome.quotaEvictions.length + outcome.rejected.length).toBeGreaterThan(0);
    for (const r of outcome.rejected) expect({ name: r.name, code: r.code }).toEqual({ name: 'QuotaError', code: 'QUOTA' });
    // A refused write left nothing behind.
    for (const r of outcome.rejected) expect(outcome.listedTexts).not.toContain(r.text);
    // Eviction took unpinned episodes only, and what it took is gone.
    expect(outcome.pinnedRecalled).toBe(true);
    for (const id of outcome.quotaEvictions) expect(outcome.listedIds).not.toContain(id);
    // Every acknowledged write is there unless the quota policy evicted it.
    const evicted = new Set(outcome.quotaEvictions);
    expect(outcome.stored.filter((id) => !evicted.has(id) && !outcome.listedIds.includes(id))).toEqual([]);

    // Consistent on disk (every record with its vector, no dangling links) and the index matches it.
    const raw = await readRawDatabase(page, DB);
    expect(consistencyProblems(raw)).toEqual([]);
    expect(outcome.indexed).toBe(raw.episodes.length + raw.facts.length);
    console.log(
      `full disk: quota ${quota.toLocaleString()} bytes (${usage.toLocaleString()} used before the memory opened); ${outcome.stored.length} large episodes stored, ` +
        `${outcome.quotaEvictions.length} evicted by the quota policy, ${outcome.rejected.length} rejected with QuotaError; orphans 0`,
    );

    // More room: writing works again, and a reload reads everything back.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await withTestMemory(page, async (memory) => {
      await memory.episodes.add({ userId: 'disk', text: 'After the disk was freed, writing works again' });
    });
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready: boolean } }).engramDemo?.ready, null, { timeout: SAFETY_NET_MS });
    await openTestMemory(page, { name: DB, lifecycle: { dedupThreshold: 0 } });
    const after = await withTestMemory(page, async (memory) => (await memory.recall('disk freed writing again', { userId: 'disk', touch: false }))[0]?.memory.text);
    expect(after).toBe('After the disk was freed, writing works again');
    await page.close();
  }, 600_000);
});
