import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../support/bundle-script.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SAFETY_NET_MS } from '../support/browser.js';

/**
 * engram in a browser extension (issue 19), in Chromium with a real unpacked
 * MV3 extension (test/browser/extension/): in a content script, IndexedDB is
 * the visited page's, so `createMemory` refuses with a ContextError unless
 * `allowPageOrigin: true`; the page's own `indexedDB.databases()` then shows
 * exactly what was (and was not) created in its origin. In an extension page
 * (the extension's own origin) it starts as usual.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
let extensionDir: string;
let profileDir: string;
let context: BrowserContext;
let server: Server;
let pageUrl: string;

beforeAll(async () => {
  extensionDir = mkdtempSync(join(tmpdir(), 'engram-extension-'));
  profileDir = mkdtempSync(join(tmpdir(), 'engram-extension-profile-'));
  cpSync(here('./extension/manifest.json'), join(extensionDir, 'manifest.json'));
  cpSync(here('./extension/page.html'), join(extensionDir, 'page.html'));
  // The probe, bundled from the packaged SDK (dist/) into one classic script, as content scripts must be.
  await bundleScript(here('./extension/probe.ts'), extensionDir, 'probe');
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>a website</title><p>Any website the user visits.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
  });
});
afterAll(async () => {
  await context?.close();
  // A set-up that failed before the server started has none to close (a promise waiting for it would never settle).
  if (server) await new Promise((resolve) => server.close(resolve));
  for (const dir of [extensionDir, profileDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const probeResult = async (page: import('playwright-core').Page) => {
  await page.waitForFunction(() => document.documentElement.dataset.engramProbe, null, { timeout: SAFETY_NET_MS });
  return JSON.parse((await page.evaluate(() => document.documentElement.dataset.engramProbe))!) as Record<string, any>;
};

describe('engram in a browser extension (Chromium, unpacked MV3)', () => {
  it("in a content script: refused with ContextError, nothing created in the website's origin; with allowPageOrigin it runs there", async () => {
    const page = await context.newPage();
    await page.goto(pageUrl);
    const result = await probeResult(page);
    expect(result.where).toBe('http:');
    expect(result.default).toMatchObject({ name: 'ContextError', code: 'CONTEXT', context: 'content-script', isContextError: true });
    expect(result.default.message).toContain('allowPageOrigin');
    expect(result.allowed).toEqual({ top: 'The user prefers aisle seats' });
    // What the website itself sees in its origin: the opted-in database, and not the refused one.
    const names = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    expect(names).toContain('probe-allowed');
    expect(names).not.toContain('probe-default');
    await page.close();
  }, SAFETY_NET_MS);

  it("in an extension page (the extension's own origin): starts as usual, and the data is not in the website's origin", async () => {
    const extensionId = await (async () => {
      // The extension has no service worker to ask: read its id from chrome://extensions.
      const page = await context.newPage();
      await page.goto('chrome://extensions');
      const id = await page.evaluate(async () => {
        const api = (globalThis as unknown as { chrome: { developerPrivate: { getExtensionsInfo(): Promise<{ id: string; name: string }[]> } } }).chrome.developerPrivate;
        return (await api.getExtensionsInfo()).find((e) => e.name.startsWith('engram origin probe'))!.id;
      });
      await page.close();
      return id;
    })();
    const page = await context.newPage();
    await page.goto(`chrome-extension://${extensionId}/page.html`);
    const result = await probeResult(page);
    expect(result.where).toBe('chrome-extension:');
    expect(result.default).toEqual({ top: 'The user prefers window seats' });
    expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toContain('probe-default');
    await page.close();
    // The website's origin never got the extension page's database.
    const site = await context.newPage();
    await site.goto(pageUrl);
    await probeResult(site);
    expect(await site.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).not.toContain('probe-default');
    await site.close();
  }, SAFETY_NET_MS);
});
