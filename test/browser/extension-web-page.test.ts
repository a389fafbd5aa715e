import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../support/bundle-script.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SAFETY_NET_MS } from '../support/browser.js';

/**
 * The extension bridge never answers a web page (issue 46, item 6), in
 * Chromium with two real unpacked MV3 extensions serving a memory with one
 * private fact (test/browser/extension/bridge-web-owner.ts): one whose
 * manifest's `externally_connectable` lets the website send it messages, and
 * one without. The website asks each for an export and tries to plant a
 * fact, over chrome.runtime.sendMessage; an app routing web pages' messages
 * into the bridge is refused without an extension id, and checked per
 * request with one.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
let root: string;
let context: BrowserContext;
let server: Server;
let siteUrl: string;
const workers = new Map<string, Worker>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'engram-web-page-'));
  for (const [name, extra] of [
    ['set', { externally_connectable: { matches: ['http://127.0.0.1/*'] } }],
    ['unset', {}],
  ] as const) {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ manifest_version: 3, name, version: '1.0', background: { service_worker: 'owner.js' }, ...extra }));
    cpSync(here('../../../shared/models/minishlab/potion-base-4M-int8'), join(dir, 'models/minishlab/potion-base-4M-int8'), { recursive: true, filter: (path) => !path.includes('model2vec') });
    await bundleScript(here('./extension/bridge-web-owner.ts'), dir, 'owner');
  }
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>a website</title><p>Any website the user visits.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const dirs = ['set', 'unset'].map((name) => join(root, name)).join(',');
  context = await chromium.launchPersistentContext(join(root, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dirs}`, `--load-extension=${dirs}`],
  });
  while (context.serviceWorkers().length < 2) await context.waitForEvent('serviceworker');
  for (const worker of context.serviceWorkers()) workers.set(await worker.evaluate(() => (globalThis as unknown as { chrome: { runtime: { getManifest(): { name: string } } } }).chrome.runtime.getManifest().name), worker);
}, SAFETY_NET_MS);
afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('engram/extension: a web page is never answered (Chromium, unpacked MV3)', () => {
  it('with externally_connectable set or unset, a website gets no export and plants nothing', async () => {
    const ids = Object.fromEntries([...workers].map(([name, worker]) => [name, new URL(worker.url()).host]));
    const site = await context.newPage();
    await site.goto(siteUrl);
    const asked = await site.evaluate(async (targets) => {
      const runtime = (globalThis as { chrome?: { runtime?: { sendMessage?: (id: string, message: unknown) => Promise<unknown> } } }).chrome?.runtime;
      const out: Record<string, string> = { canSend: String(typeof runtime?.sendMessage === 'function') };
      for (const [name, id] of Object.entries(targets)) {
        for (const [method, args] of [
          ['export', []],
          ['facts.add', [{ id: 'planted', text: 'Planted by a website' }]],
        ] as const) {
          try {
            out[`${name} ${method}`] = `answered ${JSON.stringify((await runtime!.sendMessage!(id, { tag: 'engram-bridge/1', name: 'web-notes', method, args })) ?? null)}`;
          } catch (error) {
            out[`${name} ${method}`] = `failed ${(error as Error).message}`;
          }
        }
      }
      return out;
    }, ids);
    // externally_connectable set: the website may send, and nothing answers it. Unset: it cannot reach the extension.
    expect(asked).toEqual({
      canSend: 'true',
      'set export': 'answered null',
      'set facts.add': 'answered null',
      'unset export': 'failed Could not establish connection. Receiving end does not exist.',
      'unset facts.add': 'failed Could not establish connection. Receiving end does not exist.',
    });
    for (const worker of workers.values()) expect(await worker.evaluate(() => (self as unknown as { storedFacts(): Promise<string[]> }).storedFacts())).toEqual(['private']);
    for (const worker of workers.values()) {
      // Serving over a runtime without an extension id was refused at once, with a typed error.
      expect(await worker.evaluate(() => (self as unknown as { blind: unknown }).blind)).toMatchObject({ name: 'ValidationError', code: 'VALIDATION' });
    }
    await site.close();
  }, SAFETY_NET_MS);
});
