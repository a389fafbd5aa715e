import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../support/bundle-script.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SAFETY_NET_MS } from '../support/browser.js';

/**
 * engram/extension in Chromium with a real unpacked MV3 extension (issue 19):
 * the background service worker owns the memory (serveMemory), a content
 * script on a website and an extension page use it (connectMemory). The
 * content script's writes land in the extension's origin, never the
 * website's, come back in recall from the extension page, and errors keep
 * their classes across the bridge.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
let dir: string;
let context: BrowserContext;
let server: Server;
let siteUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-bridge-'));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name: 'engram bridge (test)',
      version: '1.0',
      background: { service_worker: 'owner.js' },
      content_scripts: [{ matches: ['http://127.0.0.1/*'], js: ['client.js'] }],
    }),
  );
  writeFileSync(join(dir, 'page.html'), '<!doctype html><meta charset="utf-8"><title>extension page</title><script src="client.js"></script>');
  cpSync(here('../../../shared/models/minishlab/potion-base-4M-int8'), join(dir, 'models/minishlab/potion-base-4M-int8'), { recursive: true, filter: (path) => !path.includes('model2vec') });
  await bundleScript(here('./extension/bridge-owner.ts'), dir, 'owner');
  await bundleScript(here('./extension/bridge-client.ts'), dir, 'client');
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>a website</title><p>Any website the user visits.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  context = await chromium.launchPersistentContext(join(dir, '..', `${dir.split('/').pop()}-profile`), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
});
afterAll(async () => {
  await context?.close();
  // A set-up that failed before the server started has none to close (a promise waiting for it would never settle).
  if (server) await new Promise((resolve) => server.close(resolve));
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-profile`, { recursive: true, force: true });
  }
});

async function resultOf(page: Page): Promise<Record<string, any>> {
  await page.waitForFunction(() => document.documentElement.dataset.engramBridge, null, { timeout: SAFETY_NET_MS });
  return JSON.parse((await page.evaluate(() => document.documentElement.dataset.engramBridge))!);
}

describe('engram/extension: one memory for the whole extension (Chromium, unpacked MV3)', () => {
  it('a content script writes and recalls through the service worker; the website sees nothing; errors stay typed', async () => {
    const site = await context.newPage();
    await site.goto(siteUrl);
    const result = await resultOf(site);
    expect(result.failed).toBeUndefined();
    expect(result).toMatchObject({ where: 'http:', added: 'The user reads about sailing boats every evening', top: 'The user reads about sailing boats every evening' });
    expect(result.context).toContain('The user reads about sailing boats every evening');
    expect(result.validation).toMatchObject({ isValidationError: true, code: 'VALIDATION' });
    expect(result.validation.issues.length).toBeGreaterThan(0);
    expect(result.notFound).toEqual({ isNotFoundError: true, code: 'NOT_FOUND' });
    expect(result.otherName.isValidationError).toBe(true);
    expect(result.otherName.message).toContain('bridge-notes');
    // The website's own origin holds no engram database.
    expect(await site.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toEqual([]);
    await site.close();
  }, SAFETY_NET_MS);

  it('an extension page recalls and exports what the content script wrote', async () => {
    const worker = context.serviceWorkers().find((w) => w.url().endsWith('/owner.js')) ?? (await context.waitForEvent('serviceworker'));
    const extensionId = new URL(worker.url()).host;
    const page = await context.newPage();
    await page.goto(`chrome-extension://${extensionId}/page.html`);
    const result = await resultOf(page);
    expect(result).toEqual({ where: 'chrome-extension:', top: 'The user reads about sailing boats every evening', exported: true });
    // The data lives in the extension's origin (the service worker's IndexedDB).
    expect(await worker.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toContain('bridge-notes');
    await page.close();
  }, SAFETY_NET_MS);
});
