import { describe, expect, it } from 'vitest';
import type { Memory, RankingOptions } from '../../src/index.js';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { BARE_PAGE_DIR, watchPage } from '../support/browser.js';
import { openDemoTab, openTestMemory, withTestMemory } from '../support/test-memory-page.js';

/**
 * The index snapshot in Chromium's own IndexedDB, through the worker: its
 * pages keep the documents column-wise (src/index-sync/snapshot-page.ts),
 * which fake-indexeddb only imitates, and the vectors in files of the origin
 * private file system (page-files.ts), which Node has not. An open from the snapshot must answer exactly as an open that
 * reads every record.
 */
const demo = useDemoInChromium({ pageDir: BARE_PAGE_DIR });

/** Relevance is the cosine alone, so scores compare to the last bit. */
const COSINE_ONLY: RankingOptions = { denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } };
const TOPICS = ['likes sushi and ramen', 'went hiking in the Alps', 'the project deadline moved to Friday', 'plays the guitar', 'adopted a cat named Miso'];
const QUERIES: { query: string; options: Record<string, unknown> }[] = [
  { query: 'what does she like to eat', options: {} },
  { query: 'hiking in the mountains', options: { k: 40 } },
  { query: 'music and guitars', options: { tags: ['food'] } },
  { query: 'the project deadline', options: { filter: { category: ['goal', 'relationship'] } } },
  { query: 'a cat', options: { filter: { mood: 'calm' } } },
  { query: 'sushi', options: { since: 1_700_000_000_000 + 1_000 * 60_000 } },
];

describe('index snapshot in Chromium', () => {
  it('a snapshot open answers exactly as a records open: same ids, bit-identical scores, same filter matches', async () => {
    const context = await demo.browser.newContext();
    const page = await openDemoTab(context, demo.url);
    const watch = watchPage(page);
    const name = `snapshot-${Date.now()}`;

    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    await withTestMemory(
      page,
      async (memory, { topics }) => {
        const categories = ['profile', 'preference', 'goal', 'relationship', 'skill', 'other'] as const;
        await memory.facts.addMany(
          Array.from({ length: 4500 }, (_, i) => ({
            id: `f${i}`,
            userId: i % 3 === 0 ? 'ben' : 'ana',
            text: `${topics[i % topics.length]} (note ${i})`,
            tags: i % 4 === 0 ? ['food'] : [],
            category: categories[i % categories.length],
            metadata: i % 7 === 0 ? { mood: i % 2 ? 'happy' : 'calm' } : {},
            createdAt: 1_700_000_000_000 + i * 60_000,
          })),
          { returnRecords: false },
        );
        await memory.close();
      },
      { topics: TOPICS },
    );

    const answers: Record<string, unknown> = {};
    for (const [mode, indexSnapshot] of [
      ['snapshot', undefined],
      ['records', false],
    ] as const) {
      await openTestMemory(page, { name, ranking: COSINE_ONLY, ...(indexSnapshot === false ? { indexSnapshot } : {}) });
      answers[mode] = await withTestMemory(
        page,
        async (memory: Memory, { queries }) => {
          const out: unknown[] = [(await memory.info()).openedFrom, (await memory.info()).indexed];
          for (const userId of ['ana', 'ben']) {
            for (const { query, options } of queries) {
              const hits = await memory.recall(query, { userId, k: 10, touch: false, ...options });
              out.push(hits.map((h) => [h.memory.id, h.score]));
            }
          }
          await memory.close();
          return out;
        },
        { queries: QUERIES },
      );
    }
    const [snapshotFrom, snapshotCount, ...fromSnapshot] = answers.snapshot as unknown[];
    const [recordsFrom, recordsCount, ...fromRecords] = answers.records as unknown[];
    expect([snapshotFrom, recordsFrom]).toEqual(['snapshot', 'records']);
    expect(snapshotCount).toBe(4500);
    expect(recordsCount).toBe(4500);
    expect(fromSnapshot).toEqual(fromRecords);
    expect((fromRecords as unknown[][]).every((hits) => hits.length > 0)).toBe(true);
    expect(watch.errors).toEqual([]);
    await context.close();
  });

  it("pages keep their vectors in files of the origin private file system: replaced pages' files are deleted, and a missing file makes the next open read the records", async () => {
    const context = await demo.browser.newContext();
    const page = await openDemoTab(context, demo.url);
    const name = `files-${Date.now()}`;
    /** The page rows' payloads and the files in the database's folder (read from the page while no memory is open). */
    const stored = () =>
      page.evaluate(async (name) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const request = indexedDB.open(name);
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        const rows = await new Promise<{ key: string; payload: unknown }[]>((resolve) => {
          const request = db.transaction('snapshot').objectStore('snapshot').getAll();
          request.onsuccess = () => resolve(request.result);
        });
        db.close();
        const folder = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('engram-snapshots')).getDirectoryHandle(encodeURIComponent(name));
        const files: Record<string, number> = {};
        for await (const [file, handle] of (folder as unknown as { entries(): AsyncIterable<[string, FileSystemFileHandle]> }).entries()) files[file] = (await handle.getFile()).size;
        const pages = rows.filter((row) => row.key !== 'header').map((row) => ({ key: row.key, payload: row.payload instanceof Blob ? 'blob' : row.payload }));
        return { pages, files };
      }, name);
    const answers = () =>
      withTestMemory(
        page,
        async (memory: Memory, { queries }) => {
          const out: unknown[] = [(await memory.info()).openedFrom];
          for (const query of queries) out.push((await memory.recall(query, { userId: 'ana', k: 10, touch: false })).map((h) => [h.memory.id, h.score]));
          await memory.close();
          return out;
        },
        { queries: [...QUERIES.map((q) => q.query), 'zebra'] },
      );

    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    await withTestMemory(
      page,
      async (memory, { topics }) => {
        await memory.facts.addMany(Array.from({ length: 4500 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `${topics[i % topics.length]} (note ${i})` })), { returnRecords: false });
        await memory.close();
      },
      { topics: TOPICS },
    );
    const first = await stored();
    // Three pages (2,048 memories each), each a file of its vectors and their norms (128-d: 520 bytes a memory) named by its row.
    expect(first.pages.map((p) => p.payload)).toEqual(first.pages.map((p) => ({ file: p.key, bytes: expect.any(Number) })));
    expect(first.pages.map((p) => (p.payload as { bytes: number }).bytes).sort((a, b) => a - b)).toEqual([404 * 520, 2048 * 520, 2048 * 520]);
    expect(Object.keys(first.files).sort()).toEqual(first.pages.map((p) => p.key).sort());

    // A changed memory rewrites its page: a new file, and the replaced one is gone.
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    await withTestMemory(page, async (memory) => {
      await memory.facts.update('f3000', { text: 'zebra stripes are unique' });
      await memory.close();
    });
    const second = await stored();
    expect(Object.keys(second.files).sort()).toEqual(second.pages.map((p) => p.key).sort());
    const replaced = first.pages.map((p) => p.key).filter((key) => !second.pages.some((p) => p.key === key));
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatch(/^page:1:/);

    await openTestMemory(page, { name, ranking: COSINE_ONLY, indexSnapshot: false });
    const viaRecords = await answers();
    expect(viaRecords[0]).toBe('records');
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    expect(await answers()).toEqual(['snapshot', ...viaRecords.slice(1)]);

    // A page's file deleted behind engram's back: the open reads the records, answers the same, and saves a whole new snapshot.
    await page.evaluate(async ({ name, file }) => {
      const folder = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('engram-snapshots')).getDirectoryHandle(encodeURIComponent(name));
      await folder.removeEntry(file);
    }, { name, file: second.pages[0]!.key });
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    expect(await answers()).toEqual(['records', ...viaRecords.slice(1)]);
    const third = await stored();
    expect(Object.keys(third.files).sort()).toEqual(third.pages.map((p) => p.key).sort());
    expect(third.pages.filter((p) => second.pages.some((q) => q.key === p.key))).toEqual([]);
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    expect(await answers()).toEqual(['snapshot', ...viaRecords.slice(1)]);

    // Another tab reading a page file at that moment (a read-only sync access handle held in a worker of its own):
    // the open still reads it, and opens from the snapshot.
    const fourth = await stored();
    const held = await page.evaluate(
      ({ name, file }) =>
        new Promise<string>((resolve) => {
          const source = `onmessage = async ({ data: { name, file } }) => {
            try {
              const folder = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('engram-snapshots')).getDirectoryHandle(encodeURIComponent(name));
              self.handle = await (await folder.getFileHandle(file)).createSyncAccessHandle({ mode: 'read-only' });
              postMessage('held');
            } catch (error) { postMessage(String(error)); }
          };`;
          const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
          (window as unknown as { holder: Worker }).holder = worker;
          worker.onmessage = (event) => resolve(event.data as string);
          worker.postMessage({ name, file });
        }),
      { name, file: fourth.pages[0]!.key },
    );
    expect(held).toBe('held');
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    expect(await answers()).toEqual(['snapshot', ...viaRecords.slice(1)]);
    await page.evaluate(() => (window as unknown as { holder: Worker }).holder.terminate());
    await context.close();
  });

  it('a tab killed before it saved: the next open loads the snapshot and replays the logged writes, answering as a records open', async () => {
    const context = await demo.browser.newContext();
    const page = await openDemoTab(context, demo.url);
    const name = `killed-${Date.now()}`;
    await openTestMemory(page, { name, ranking: COSINE_ONLY });
    await withTestMemory(
      page,
      async (memory, { topics }) => {
        await memory.facts.addMany(Array.from({ length: 3000 }, (_, i) => ({ id: `f${i}`, userId: 'ana', text: `${topics[i % topics.length]} (note ${i})` })), { returnRecords: false });
        await memory.close();
      },
      { topics: TOPICS },
    );

    // A tab that writes and never saves (no close(), a save delay of an hour), then is closed as a killed tab would be.
    const dying = await openDemoTab(context, demo.url);
    await openTestMemory(dying, { name, ranking: COSINE_ONLY, indexSnapshot: { saveDelayMs: 3_600_000 } });
    await withTestMemory(dying, async (memory) => {
      await memory.facts.add({ id: 'late', userId: 'ana', text: 'zebra crossing near the office' });
      await memory.facts.delete('f0');
      await memory.facts.update('f1', { text: 'zebra print jacket' });
      await memory.turns.add({ id: 't1', userId: 'ana', speaker: 'Ana', text: 'I play the guitar in a jazz band' });
    });
    await dying.close({ runBeforeUnload: false });

    const answers: Record<string, unknown[]> = {};
    for (const [mode, indexSnapshot] of [
      ['replayed', undefined],
      ['records', false],
    ] as const) {
      await openTestMemory(page, { name, ranking: COSINE_ONLY, ...(indexSnapshot === false ? { indexSnapshot } : {}) });
      answers[mode] = await withTestMemory(
        page,
        async (memory: Memory, { queries }) => {
          const info = await memory.info();
          const out: unknown[] = [info.openedFrom, info.indexed];
          for (const query of [...queries, 'zebra', 'jazz guitar']) out.push((await memory.recall(query, { userId: 'ana', k: 10, touch: false })).map((h) => [h.memory.id, h.score]));
          await memory.close();
          return out;
        },
        { queries: QUERIES.map((q) => q.query) },
      );
    }
    expect(answers.replayed!.slice(0, 2)).toEqual(['snapshot', 3001]);
    expect(answers.records!.slice(0, 2)).toEqual(['records', 3001]);
    expect(answers.replayed!.slice(2)).toEqual(answers.records!.slice(2));
    expect((answers.replayed![2 + QUERIES.length] as [string, number][]).map(([id]) => id).slice(0, 2).sort()).toEqual(['f1', 'late']);
    await context.close();
  });
});
