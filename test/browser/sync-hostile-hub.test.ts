import { PGlite } from '@electric-sql/pglite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import type { MemoryOptions } from '../../src/index.js';
import { fromBase64Url, toBase64Url } from '../../src/replication/base64url.js';
import type { PullResponse, PulledRow } from '../../src/replication/protocol.js';
import { openRow, sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../../src/replication/sync-key.js';
import { createSyncHandler, pgliteSyncStore, toNodeHandler } from '../../src/server.js';
import { BARE_PAGE_DIR, launchChromium } from '../support/browser.js';
import { bearerSpaces } from '../support/sync-hub.js';
import { openDemoTab, openTestMemory, withTestMemory } from '../support/test-memory-page.js';

/**
 * A hostile hub in the browser: a memory in Chromium (its engine in a Web
 * Worker, WebCrypto, the page's fetch) pulls from a real hub whose pull
 * answers the test rewrites on the way: garbage, a tampered row, the rows
 * it already took handed out again, another space's rows. Each is a typed
 * SyncError with its reason, on `sync.now()` and in `sync.status.lastError`,
 * and the store is unchanged (same export; the next honest round applies
 * exactly the rows it had not taken). The same cases in Node, in more
 * detail: test/integration/sync-hostile-hub.test.ts.
 */
const SPACE = 'space-hostile';
const SECRET = 'a secret both devices were given, 32+ bytes';
let db: PGlite;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let browser: Browser;
/** What the hub does to the next pull answer's body (null: passes it through). */
let meddle: ((body: PullResponse) => Promise<unknown>) | null = null;
/** The last honest pull answer that carried rows. */
let lastRows: PullResponse | undefined;

beforeAll(async () => {
  db = await PGlite.create();
  const hub = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ 'user-token': SPACE }) });
  const hostile = async (request: Request): Promise<Response> => {
    const response = await hub(request);
    if (!new URL(request.url).pathname.endsWith('/pull') || !response.ok) return response;
    const body = (await response.json()) as PullResponse;
    if (!meddle) {
      if (body.rows.length > 0) lastRows = body;
      return Response.json(body);
    }
    const answer = await meddle(body);
    return new Response(typeof answer === 'string' ? answer : JSON.stringify(answer), { headers: { 'content-type': typeof answer === 'string' ? 'text/html' : 'application/json' } });
  };
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR, sync: toNodeHandler(hostile) });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await db?.close();
});

const syncOptions = (): Pick<MemoryOptions, 'sync'> => ({
  sync: { remote: { url: `${server.url}sync`, headers: { authorization: 'Bearer user-token' }, retries: 0 }, key: { secret: SECRET }, space: SPACE, autoStart: false },
});
const exportLines = (page: Page) =>
  withTestMemory(page, async (memory) => (await (await memory.export()).text()).trim().split('\n').slice(1, -1).sort());
const round = (page: Page) =>
  withTestMemory(page, async (memory) =>
    memory.sync.now().then(
      (r) => ({ ok: true as const, applied: r.applied }),
      (e: { name: string; code: string; reason?: string }) => ({ ok: false as const, name: e.name, code: e.code, reason: e.reason, status: memory.sync.status.lastError }),
    ),
  );

it('garbage, a tampered row, replayed rows and another space\'s rows: a typed SyncError each, and the store unchanged', async () => {
  const key = await createSyncKey({ secret: SECRET });
  const phone = await openDemoTab(await browser.newContext(), server.url);
  const laptop = await openDemoTab(await browser.newContext(), server.url);
  await openTestMemory(phone, { name: 'phone', ...syncOptions() });
  await openTestMemory(laptop, { name: 'laptop', ...syncOptions() });
  const write = (texts: string[]) =>
    withTestMemory(phone, async (memory, list) => {
      for (const text of list) await memory.facts.add({ userId: 'ana', text }, { merge: false });
      await memory.sync.now();
    }, texts);

  // An honest round first: the laptop takes the phone's first three facts.
  await write(['Ana is allergic to peanuts', 'Ana plays the cello', 'Ana works night shifts']);
  expect(await round(laptop)).toEqual({ ok: true, applied: 3 });
  const taken = lastRows!;
  await write(['Ana adopted a grey cat', 'Ana is learning Japanese']);
  const before = await exportLines(laptop);

  const refused = async (reason: string, rewrite: (body: PullResponse) => Promise<unknown>) => {
    meddle = rewrite;
    const result = await round(laptop);
    meddle = null;
    expect(result).toMatchObject({ ok: false, name: 'SyncError', code: 'SYNC', reason, status: { code: 'SYNC', reason } });
    expect(await exportLines(laptop), `store unchanged after the ${reason} answer`).toEqual(before);
  };
  const flipped = (row: PulledRow): PulledRow => {
    const bytes = fromBase64Url(row.ciphertext)!;
    bytes[5] = bytes[5]! ^ 0x01;
    return { ...row, ciphertext: toBase64Url(bytes) };
  };
  /** The same changes sealed for another space under the same key. */
  const otherSpaceRows = (body: PullResponse) =>
    Promise.all(body.rows.map(async (row) => ({ ...(await sealChange(key, { space: 'space-other', seq: row.seq, change: (await openRow(key, SPACE, row))! })), cursor: row.cursor })));

  await refused('malformed', async () => '<html><body>502 Bad Gateway</body></html>');
  await refused('tampered', async (body) => ({ ...body, rows: body.rows.map((row, i) => (i === 1 ? flipped(row) : row)) }));
  // The rows already taken, under cursors after the one asked after.
  await refused('replayed', async (body) => ({ ...body, rows: taken.rows.map((row, i) => ({ ...row, cursor: String(Number(body.rows[0]!.cursor) + i) })), next: String(Number(body.rows[0]!.cursor) + taken.rows.length - 1) }));
  await refused('foreign_space', async (body) => ({ ...body, rows: await otherSpaceRows(body), spaceTag: await spaceTag(key, 'space-other') }));
  // Another space's rows labelled as this one's: they do not open under this space's associated data.
  await refused('tampered', async (body) => ({ ...body, rows: await otherSpaceRows(body) }));

  // The honest answer again: exactly the two rows not taken yet, and the laptop ends with the phone's export.
  expect(await round(laptop)).toEqual({ ok: true, applied: 2 });
  expect(await exportLines(laptop)).toEqual(await exportLines(phone));
  expect(await withTestMemory(laptop, async (memory) => memory.sync.status.lastError)).toBeNull();
});
