import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { BARE_PAGE_DIR, launchChromium } from '../support/browser.js';
import { consistencyProblems, openDemoTab, openTestMemory, readRawDatabase, removedIds, withTestMemory } from '../support/test-memory-page.js';

/**
 * Several tabs of one app on one database, in Chromium: each tab runs its own
 * engine in its own Web Worker; they share only IndexedDB and the cross-tab
 * change signal (BroadcastChannel).
 */
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;
let tabs: Page[];
const DB = `multi-tab-${Date.now()}`;
const CAP = 10;

beforeAll(async () => {
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR });
  browser = await launchChromium();
  // One browser context: tabs of one profile share IndexedDB, as in a real browser.
  context = await browser.newContext();
  tabs = [];
  for (let i = 0; i < 3; i++) tabs.push(await openDemoTab(context, server.url));
  for (const tab of tabs) await openTestMemory(tab, { name: DB, lifecycle: { maxEpisodes: CAP } });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('several tabs on one database (Chromium)', () => {
  it('a memory written in one tab becomes recallable in the others without their doing anything', async () => {
    // The other tabs start watching first: each recalls again whenever it hears of a change, until it recalls the
    // fact (how soon is bench:visibility:browser's to print; no time limit here: a refresh that never comes is a hung test).
    const watchers = tabs.slice(1).map((tab) =>
      withTestMemory(tab, async (memory) => {
        for (;;) {
          let off = () => {};
          const changed = new Promise<void>((resolve) => (off = memory.on('change', () => resolve())));
          const hits = await memory.recall('who keeps bees?', { userId: 'tab-user', touch: false });
          if (hits.some((h) => h.memory.text.includes('hives'))) return off(), true;
          await changed;
          off();
        }
      }),
    );
    await withTestMemory(tabs[0]!, async (memory) => {
      await memory.facts.add({ userId: 'tab-user', text: 'The user keeps two hives of bees in the back garden' });
    });
    expect(await Promise.all(watchers), 'every other tab recalled the fact written in the first').toEqual(tabs.slice(1).map(() => true));
  });

  it('tabs writing and recalling at once: no acknowledged write lost, dedup across tabs, the cap holds at rest', async () => {
    const duplicated = [
      'Decided to move the weekly standup to Thursday so the Lisbon team can join',
      'Fixed the memory leak in the image upload service by closing file handles',
      'Booked the venue for the March offsite and sent the agenda to everyone',
    ];
    // Twenty unrelated sentences, twelve per tab, offset so that tabs share some: those dedup to one copy
    // (identical text), and the twenty distinct ones left are twice the cap.
    const notes = [
      'Planted tomatoes and basil along the south fence of the allotment',
      'The quarterly invoice for the design agency was paid by bank transfer',
      'Upgraded the Kubernetes cluster to the new minor version over the weekend',
      'Climbed the north face route at the indoor wall with a new partner',
      'Baked a rye sourdough loaf with a starter fed the night before',
      'Filed the tax return early to claim the refund for home office costs',
      'Practised fingerpicking patterns on the acoustic guitar for an hour',
      'Adopted a grey rescue cat named Pepper from the shelter downtown',
      'Renewed the passport at the consulate after waiting three weeks',
      'Replaced the bathroom tap washer that had been dripping all winter',
      'Watched a documentary about deep sea volcanoes and hydrothermal vents',
      'Signed up for a beginner pottery class on Wednesday evenings',
      'Repaired a flat bicycle tyre with a patch kit before the commute',
      'Translated the onboarding guide into Portuguese for the Brazil office',
      'Booked train tickets to Vienna for the Christmas market trip',
      'Migrated the billing database from MySQL to Postgres without downtime',
      'Read a novel about a lighthouse keeper on a remote Scottish island',
      'Started running three kilometres every morning before breakfast',
      'Painted the spare bedroom a pale green and hung new curtains',
      'Interviewed two candidates for the frontend engineering role',
    ];
    const acknowledged = await Promise.all(
      tabs.map((tab, t) =>
        withTestMemory(
          tab,
          async (memory, { t, duplicated, notes }) => {
            const topics = ['gardening', 'invoices', 'kubernetes', 'climbing', 'sourdough', 'tax returns', 'guitar'];
            const episodes: string[] = [];
            const facts: string[] = [];
            for (let i = 0; i < 15; i++) {
              const topic = topics[(i + t) % topics.length]!;
              // Every tab writes the duplicated texts too, at about the same moment as the others.
              // The others are unrelated sentences, so dedup cannot merge them down below the cap, which then must evict.
              const text = i < duplicated.length ? duplicated[i]! : notes[(i - duplicated.length + t * 5) % notes.length]!;
              // Pinned, so the cap never takes them: what removes the extra copies can only be dedup.
              episodes.push((await memory.episodes.add({ userId: 'tab-user', text, pinned: i < duplicated.length })).id);
              if (i % 3 === 0) facts.push((await memory.facts.add({ userId: 'tab-user', text: `Tab ${t} fact ${i}: the user cares about ${topic}` })).id);
              await memory.recall(topic, { userId: 'tab-user', touch: false });
            }
            await memory.idle();
            return { episodes, facts };
          },
          { t, duplicated, notes },
        ),
      ),
    );

    const raw = await readRawDatabase(tabs[0]!, DB);
    expect(consistencyProblems(raw)).toEqual([]);
    const stored = raw.episodes.filter((e) => e.userId === 'tab-user');
    expect(stored.filter((e) => !e.pinned).length).toBeLessThanOrEqual(CAP);
    const removed = removedIds(raw);
    const present = new Set(stored.map((e) => e.id));
    const ackedEpisodes = acknowledged.flatMap((a) => a.episodes);
    expect(ackedEpisodes.filter((id) => !present.has(id) && !removed.has(id))).toEqual([]);
    const facts = new Set(raw.facts.map((f) => f.id));
    expect(acknowledged.flatMap((a) => a.facts).filter((id) => !facts.has(id))).toEqual([]);
    // Three tabs wrote each of these; dedup across tabs leaves exactly one copy.
    for (const text of duplicated) expect(stored.filter((e) => e.text === text).length).toBe(1);
    const dedups = raw.events.filter((e) => e.type === 'dedup').length;
    const evictions = raw.events.filter((e) => e.type === 'eviction').flatMap((e) => e.data.evicted as string[]).length;
    // Each duplicated text was written by every tab; all but one of those writes were replaced by dedup.
    const replaced = new Set(raw.events.filter((e) => e.type === 'dedup').map((e) => e.data.replacedId as string));
    duplicated.forEach((_, i) => expect(acknowledged.filter((a) => replaced.has(a.episodes[i]!)).length).toBeGreaterThanOrEqual(tabs.length - 1));
    expect(evictions).toBeGreaterThan(0);
    console.log(`${tabs.length} tabs: ${ackedEpisodes.length} episodes + ${facts.size} facts acknowledged; at rest ${stored.length} episodes (${stored.filter((e) => e.pinned).length} pinned; cap ${CAP} on the rest), ${dedups} replaced by dedup, ${evictions} evicted by the cap, lost 0`);

    // Every tab's index converges on what IndexedDB holds, and recalls a memory written in another tab.
    const searchableIds = [...stored.map((e) => e.id), ...raw.facts.filter((f) => f.status !== 'retired').map((f) => f.id)].sort();
    const newest = stored[stored.length - 1]!;
    for (const tab of tabs) {
      const view = await withTestMemory(
        tab,
        async (memory, { want, text }) => {
          // Converged means the same memories, not just as many: a dedup commit removes one and adds one.
          // Looked at again each time this tab hears of a change (no time limit: one that never comes is a hung test).
          const indexedIds = async () => (await memory.recall(text, { userId: 'tab-user', k: 1000, touch: false })).map((h) => h.memory.id).sort();
          let ids: string[];
          for (;;) {
            let off = () => {};
            const changed = new Promise<void>((resolve) => (off = memory.on('change', () => resolve())));
            ids = await indexedIds();
            if (JSON.stringify(ids) === JSON.stringify(want)) {
              off();
              break;
            }
            await changed;
            off();
          }
          const info = await memory.info();
          const hits = await memory.recall(text, { userId: 'tab-user', k: 3, touch: false });
          return { ids, indexed: info.indexed, top: hits.map((h) => h.memory.text) };
        },
        { want: searchableIds, text: newest.text },
      );
      expect(view.ids).toEqual(searchableIds);
      expect(view.indexed).toBe(searchableIds.length);
      expect(view.top).toContain(newest.text);
    }
  });
});
