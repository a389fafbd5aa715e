import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDemoServer } from '../../demo/server.js';
import { BARE_PAGE_DIR, launchChromium, SAFETY_NET_MS } from '../support/browser.js';
import { openDemoTab, openTestMemory, withTestMemory } from '../support/test-memory-page.js';

/**
 * `memory.live(query)` across tabs (issue 18): each tab runs its own engine
 * in its own Web Worker on one database; a live query in one tab re-runs when
 * another tab commits a change for its user, and not for another user's.
 */
type LiveWindow = { liveSeen: { facts: string[][]; recall: string[][] }; liveStop: () => void };

let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;
let watcher: Page;
let writer: Page;
const DB = `live-tabs-${Date.now()}`;

beforeAll(async () => {
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR });
  browser = await launchChromium();
  context = await browser.newContext();
  watcher = await openDemoTab(context, server.url);
  writer = await openDemoTab(context, server.url);
  for (const tab of [watcher, writer]) await openTestMemory(tab, { name: DB });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('live queries across tabs (Chromium)', () => {
  it("a live facts list and a live recall in one tab follow another tab's writes for their user", async () => {
    await withTestMemory(watcher, async (memory) => {
      const w = window as unknown as LiveWindow;
      w.liveSeen = { facts: [], recall: [] };
      const facts = memory.live({ facts: { userId: 'ana' } });
      const recall = memory.live({ recall: 'which pets does Ana have?', options: { userId: 'ana', touch: false } });
      // Svelte's contract: subscribe calls back at once, then on every change.
      const stopFacts = facts.subscribe((s) => {
        if (s.data && !s.loading) w.liveSeen.facts.push((s.data as { text: string }[]).map((f) => f.text).sort());
      });
      // The Observable contract, looked up as RxJS's from() does without a Symbol.observable polyfill.
      const subscription = (recall as unknown as Record<string, () => { subscribe(o: { next(v: unknown): void }): { unsubscribe(): void } }>)['@@observable']!().subscribe({
        next: (s) => {
          const snap = s as { data?: { memory: { text: string } }[]; loading: boolean };
          if (snap.data && !snap.loading) w.liveSeen.recall.push(snap.data.map((h) => h.memory.text));
        },
      });
      w.liveStop = () => {
        stopFacts();
        subscription.unsubscribe();
      };
    });
    await watcher.waitForFunction(() => (window as unknown as LiveWindow).liveSeen.facts.length >= 1, null, { timeout: SAFETY_NET_MS });

    await withTestMemory(writer, async (memory) => {
      await memory.facts.add({ userId: 'ana', text: 'Ana has a grey cat called Miso.' });
      await memory.facts.add({ userId: 'bob', text: 'Bob has a parrot.' });
    });
    await watcher.waitForFunction(
      () => {
        const seen = (window as unknown as LiveWindow).liveSeen;
        return seen.facts.at(-1)?.length === 1 && (seen.recall.at(-1) ?? []).includes('Ana has a grey cat called Miso.');
      },
      null,
      { timeout: SAFETY_NET_MS },
    );
    const seen = await watcher.evaluate(() => (window as unknown as LiveWindow).liveSeen);
    expect(seen.facts[0]).toEqual([]);
    expect(seen.facts.at(-1)).toEqual(['Ana has a grey cat called Miso.']);
    // Bob's fact is another user's: never in Ana's live answers.
    expect(JSON.stringify(seen)).not.toContain('parrot');

    // After unsubscribing, another tab's writes no longer reach this tab's listeners.
    const before = await watcher.evaluate(() => {
      const w = window as unknown as LiveWindow;
      w.liveStop();
      return w.liveSeen.facts.length + w.liveSeen.recall.length;
    });
    await withTestMemory(writer, async (memory) => {
      await memory.facts.add({ userId: 'ana', text: 'Ana also has a dog.' });
    });
    // The writer's own tab sees the fact, so the change has been announced; the watcher's listeners stayed quiet.
    await withTestMemory(watcher, async (memory) => {
      // Looked at again each time this tab hears of a change (no time limit: one that never comes is a hung test).
      for (;;) {
        let off = () => {};
        const changed = new Promise<void>((resolve) => (off = memory.on('change', () => resolve())));
        const found = (await memory.facts.list({ userId: 'ana' })).length === 2;
        if (found) return off();
        await changed;
        off();
      }
    });
    expect(await watcher.evaluate(() => (window as unknown as LiveWindow).liveSeen.facts.length + (window as unknown as LiveWindow).liveSeen.recall.length)).toBe(before);
  });
});
