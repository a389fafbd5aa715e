import type { BrowserContext, Page } from 'playwright-core';
import type { Memory, MemoryOptions } from '../../src/index.js';
import { SAFETY_NET_MS } from './browser.js';

/**
 * Browser tests that need their own database and settings open a memory in
 * the demo page with `window.engramDemo.open(options)`: the public API, on
 * the demo's Web Worker path and offline model. It is kept on the page as
 * `window.testMemory`.
 */
type DemoWindow = {
  engramDemo?: { ready: boolean; open(options: Omit<MemoryOptions, 'embedder'>): Promise<Memory> };
  testMemory?: Memory;
};

/** Opens the demo page in a new tab of `context` and waits until it is ready. */
export async function openDemoTab(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await waitDemoReady(page);
  return page;
}

/**
 * Waits until the demo is ready. A demo that failed to start says so in its
 * status line (demo/src/main.ts): that fails the wait at once, with the
 * status and the page's errors, instead of after the safety net.
 */
export async function waitDemoReady(page: Page): Promise<void> {
  const errors: string[] = [];
  const onError = (error: Error) => errors.push(`pageerror: ${error.message}`);
  const onConsole = (message: { type(): string; text(): string }) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`console.${message.type()}: ${message.text()}`);
  };
  page.on('pageerror', onError);
  page.on('console', onConsole);
  try {
    const outcome = await page.waitForFunction(
      () => ((window as unknown as DemoWindow).engramDemo?.ready ? 'ready' : /^Failed to start/.test(document.getElementById('status')?.textContent ?? '') ? document.getElementById('status')!.textContent : null),
      null,
      { timeout: SAFETY_NET_MS },
    );
    const value = await outcome.jsonValue();
    if (value !== 'ready') throw new Error(`the demo page did not start: ${value}${errors.length ? `\n${errors.join('\n')}` : ''}`);
  } catch (error) {
    if (errors.length && !(error as Error).message.includes(errors[0]!)) (error as Error).message += `\npage errors while waiting:\n${errors.join('\n')}`;
    throw error;
  } finally {
    page.off('pageerror', onError);
    page.off('console', onConsole);
  }
}

/** Opens `window.testMemory` in the page (only serialisable options: no functions). */
export async function openTestMemory(page: Page, options: Omit<MemoryOptions, 'embedder' | 'llm' | 'onProgress'>): Promise<void> {
  await page.evaluate(async (opts) => {
    const w = window as unknown as DemoWindow;
    w.testMemory = await w.engramDemo!.open(opts);
  }, options as never);
}

/**
 * Runs `fn(memory, arg)` in the page against `window.testMemory`. `fn` travels
 * as source text, so it may use only its arguments and browser globals.
 */
export function withTestMemory<R, A = undefined>(page: Page, fn: (memory: Memory, arg: A) => Promise<R>, arg?: A): Promise<R> {
  return page.evaluate(
    async ({ source, arg }) => {
      const memory = (window as unknown as DemoWindow).testMemory;
      if (!memory) throw new Error('window.testMemory is not open');
      return (new Function(`return (${source})`)() as (m: Memory, a: unknown) => Promise<unknown>)(memory, arg);
    },
    { source: fn.toString(), arg: arg as unknown },
  ) as Promise<R>;
}

/**
 * Reads the engram database straight from IndexedDB in the page (a raw
 * read-only transaction over every store), for consistency checks that must
 * not go through the engine under test.
 */
export function readRawDatabase(page: Page, name: string): Promise<RawDatabase> {
  return page.evaluate(async (dbName) => {
    const empty = { episodes: [], facts: [], vectors: [], events: [], jobs: [], tasks: [] };
    // Opening a database that does not exist would create it (empty, version 1): look first.
    if (!(await indexedDB.databases()).some((d) => d.name === dbName)) return empty;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(dbName);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    try {
      const stores = ['episodes', 'facts', 'vectorBlocks', 'events', 'jobs', 'tasks'].filter((s) => db.objectStoreNames.contains(s));
      if (stores.length === 0) return empty;
      const tx = db.transaction(stores, 'readonly');
      const all = (store: string) =>
        new Promise<unknown[]>((resolve, reject) => {
          const request = tx.objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result as unknown[]);
          request.onerror = () => reject(request.error);
        });
      const [episodes, facts, blocks, events, jobs, tasks] = await Promise.all(['episodes', 'facts', 'vectorBlocks', 'events', 'jobs', 'tasks'].map((s) => (stores.includes(s) ? all(s) : Promise.resolve([]))));
      return {
        episodes: (episodes as { id: string; userId: string; parentId: string | null; pinned: boolean; text: string }[]).map(({ id, userId, parentId, pinned, text }) => ({ id, userId, parentId, pinned, text })),
        facts: (facts as { id: string; userId: string; status: string; text: string }[]).map(({ id, userId, status, text }) => ({ id, userId, status, text })),
        // Vectors are stored in blocks of several memories (src/store/vector-blocks.ts): one entry per memory here.
        vectors: (blocks as { ids: string[]; kind: string; vectors: Float32Array }[]).flatMap(({ ids, kind, vectors }) => ids.map((id) => ({ id, kind, length: vectors.length / ids.length }))),
        events: events as RawDatabase['events'],
        jobs: (jobs as { id: string; kind: string }[]).map(({ id, kind }) => ({ id, kind })),
        tasks: (tasks as { id: string; status: string; patternIds: string[] }[]).map(({ id, status, patternIds }) => ({ id, status, patternIds })),
      };
    } finally {
      db.close();
    }
  }, name);
}

export interface RawDatabase {
  episodes: { id: string; userId: string; parentId: string | null; pinned: boolean; text: string }[];
  facts: { id: string; userId: string; status: string; text: string }[];
  vectors: { id: string; kind: string; length: number }[];
  events: { seq: number; type: string; userId: string | null; data: Record<string, unknown> }[];
  jobs: { id: string; kind: string }[];
  tasks: { id: string; status: string; patternIds: string[] }[];
}

/**
 * Store-level invariants that hold after any crash: every record has its
 * vector and every vector its record; no chain link points at a missing
 * episode; every replaced or evicted id (the events are written in the same
 * transaction as the deletes) is really gone. Returns what is violated.
 */
export function consistencyProblems(raw: RawDatabase): string[] {
  const problems: string[] = [];
  const episodeIds = new Set(raw.episodes.map((e) => e.id));
  const searchable = new Set([...raw.episodes.map((e) => e.id), ...raw.facts.filter((f) => f.status !== 'retired').map((f) => f.id)]);
  const completedTasks = new Set(raw.tasks.filter((t) => t.status === 'completed').map((t) => t.id));
  const factIds = new Set(raw.facts.map((f) => f.id));
  const vectorIds = new Set(raw.vectors.map((v) => v.id));
  for (const id of searchable) if (!vectorIds.has(id)) problems.push(`record ${id} has no vector`);
  if (vectorIds.size !== raw.vectors.length) problems.push(`${raw.vectors.length - vectorIds.size} memories have more than one stored vector`);
  for (const v of raw.vectors) {
    const owner = v.kind === 'task' ? completedTasks.has(v.id) : v.kind === 'episode' ? episodeIds.has(v.id) : factIds.has(v.id);
    if (!owner) problems.push(`vector ${v.id} (${v.kind}) has no record`);
  }
  for (const e of raw.episodes) if (e.parentId && !episodeIds.has(e.parentId)) problems.push(`episode ${e.id} points at missing parent ${e.parentId}`);
  // A later write may reuse nothing (ids are fresh), so a removed id must stay removed.
  for (const ev of raw.events) {
    const gone = ev.type === 'dedup' ? [ev.data.replacedId as string] : ev.type === 'eviction' ? (ev.data.evicted as string[]) : [];
    for (const id of gone) if (episodeIds.has(id)) problems.push(`${ev.type} event #${ev.seq} removed ${id}, but it is still stored`);
  }
  return problems;
}

/** Ids removed on purpose (dedup, eviction), from the events written in the same transaction as the deletes. */
export function removedIds(raw: RawDatabase): Set<string> {
  return new Set(raw.events.flatMap((ev) => (ev.type === 'dedup' ? [ev.data.replacedId as string] : ev.type === 'eviction' ? (ev.data.evicted as string[]) : [])));
}
