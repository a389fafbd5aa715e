import { PGlite } from '@electric-sql/pglite';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../src/replication/hub-client.js';
import { createSyncKey } from '../../src/replication/sync-key.js';
import { syncRound } from '../../src/replication/sync-round.js';
import { createSyncHandler, pgliteSyncStore } from '../../src/server.js';
import { launchChromium, nonLocalHosts, watchPage } from '../support/browser.js';
import { MemoryReplica } from '../support/memory-replica.js';
import { bearerSpaces, serveOnLoopback } from '../support/sync-hub.js';

/**
 * Sync's cryptography and transport in Chromium and in Node against each
 * other: a device in a page (WebCrypto PBKDF2 + HKDF + AES-GCM, the page's
 * fetch) and a device in Node, with the same passphrase, sync through a hub
 * on loopback. Each opens what the other sealed, vectors exact.
 */
const PASSPHRASE = 'a passphrase both devices know';
const SPACE = 'space-browser';
let browser: Browser;
let db: PGlite;
let hub: Awaited<ReturnType<typeof serveOnLoopback>>;
let outdir: string;
beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'engram-sync-page-'));
  await build({ entryPoints: [fileURLToPath(new URL('./sync-page/device.ts', import.meta.url))], bundle: true, format: 'iife', outfile: join(outdir, 'device.js'), logLevel: 'error' });
  const script = readFileSync(join(outdir, 'device.js'), 'utf8');
  db = await PGlite.create();
  const sync = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ 'browser-token': SPACE }) });
  hub = await serveOnLoopback(async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith('/sync/')) return sync(request);
    if (pathname === '/device.js') return new Response(script, { headers: { 'content-type': 'text/javascript' } });
    return new Response('<!doctype html><script src="/device.js"></script>', { headers: { 'content-type': 'text/html' } });
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await db?.close();
  rmSync(outdir, { recursive: true, force: true });
});

describe('sync between Chromium and Node', () => {
  it('rows sealed in the page open in Node and the reverse, with the same key from the same passphrase', async () => {
    const key = await createSyncKey({ passphrase: PASSPHRASE, salt: SPACE, iterations: 100_000 });
    const node = new MemoryReplica('node');
    node.put('fact', 'from-node', { text: 'sealed in Node' }, { embedder: 'static-3', values: new Float32Array([0.5, -1 / 3, 1e-7]) });
    const client = createHubClient({ url: hub.url, headers: { authorization: 'Bearer browser-token' }, retries: 0 });
    await syncRound({ replica: node, client, key, space: SPACE });

    const context = await browser.newContext();
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(new URL('/', hub.url).href);
    await page.waitForFunction(() => 'syncDevice' in window);
    type Device = { write(id: string, text: string, vector: number[]): void; sync(o: object): Promise<{ keyTag?: string; error?: unknown; live: Record<string, unknown> }> };
    const inPage = await page.evaluate(
      async ({ url }) => {
        const device = (window as unknown as { syncDevice: Device }).syncDevice;
        device.write('from-chromium', 'sealed in Chromium', [0.25, -0.125, Math.fround(0.1)]);
        return device.sync({ url, token: 'browser-token', passphrase: 'a passphrase both devices know', space: 'space-browser' });
      },
      { url: hub.url },
    );
    expect(inPage.error).toBeUndefined();
    expect(inPage.keyTag).toBe(key.keyTag);

    await syncRound({ replica: node, client, key, space: SPACE });
    expect(node.live()).toEqual(inPage.live);
    expect(Object.keys(node.live()).sort()).toEqual(['fact/from-chromium', 'fact/from-node']);
    expect((node.live()['fact/from-chromium'] as { vector: number[] }).vector).toEqual([0.25, -0.125, Math.fround(0.1)]);

    // A page with the wrong passphrase is told so on its first pull.
    const wrong = await context.newPage();
    await wrong.goto(new URL('/', hub.url).href);
    await wrong.waitForFunction(() => 'syncDevice' in window);
    const refused = await wrong.evaluate(
      ({ url }) => (window as unknown as { syncDevice: Device }).syncDevice.sync({ url, token: 'browser-token', passphrase: 'not the passphrase', space: 'space-browser' }),
      { url: hub.url },
    );
    expect(refused.error).toEqual({ name: 'SyncError', reason: 'wrong_key' });
    expect(refused.live).toEqual({});
    expect(nonLocalHosts(watch.requests)).toEqual([]);
    expect(watch.errors).toEqual([]);
    await context.close();
  });
});
