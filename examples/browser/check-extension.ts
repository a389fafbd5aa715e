/**
 * The example extension (examples/extension/) as a user gets it: installed
 * from the PACKED tarball, built with its own esbuild (which copies engram's
 * bundled model into it), loaded unpacked in Chromium. The popup writes a fact through the memory the service worker
 * serves; a content script on a loopback website recalls it; the website's
 * own indexedDB.databases() lists nothing and its document holds no memory.
 * Called by examples/browser/check.ts (`npm run examples`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SAFETY_NET_MS } from '../../test/support/browser.js';

const FACT = 'The user is learning the cello with a teacher on Tuesdays';

export async function checkExtension(options: { dir: string; tarball: string; install: boolean }): Promise<string> {
  const { dir } = options;
  const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: dir, stdio: 'inherit', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
  if (options.install) {
    const source = fileURLToPath(new URL('../extension/', import.meta.url));
    rmSync(dir, { recursive: true, force: true });
    cpSync(source, dir, { recursive: true, filter: (path) => !/(^|\/)(node_modules|dist|models)(\/|$)/.test(path.slice(source.length)) });
    const manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    manifest.dependencies.engram = `file:${options.tarball}`;
    writeFileSync(`${dir}package.json`, JSON.stringify(manifest, null, 2));
    run('npm', ['install', '--no-audit', '--no-fund']);
  }
  run('npm', ['run', 'build']);
  const contentGzip = gzipSync(readFileSync(`${dir}dist/content.js`)).length;

  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Cello lessons for adults</title><h1>Learning the cello</h1><p>Any website the user visits.</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const profile = mkdtempSync(join(tmpdir(), 'engram-extension-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}dist`, `--load-extension=${dir}dist`],
  });
  context.setDefaultTimeout(SAFETY_NET_MS);
  const errors: string[] = [];
  context.on('weberror', (error) => errors.push(error.error().message));
  const problems: string[] = [];
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    const id = new URL(worker.url()).host;

    // The popup: an empty note is refused with the memory's own message; a real one is remembered.
    const popup = await context.newPage();
    popup.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await popup.goto(`chrome-extension://${id}/popup.html`);
    await popup.click('button');
    await popup.waitForFunction(() => document.querySelector('#status')!.textContent !== '');
    const refused = await popup.textContent('#status');
    if (!/text/i.test(refused ?? '')) problems.push(`empty note: ${JSON.stringify(refused)}`);
    await popup.fill('#text', FACT);
    await popup.click('button');
    await popup.waitForFunction(() => document.querySelector('#status')!.textContent === 'Remembered.');
    const latest = await popup.textContent('#latest');
    if (!latest?.includes(FACT)) problems.push(`popup list: ${JSON.stringify(latest)}`);

    // A website: the content script recalls the fact; the website sees none of it.
    const page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(siteUrl);
    const found = await worker.evaluate(async () => {
      const memories = (self as unknown as { pageMemories: Map<number, { lines: string[] }> }).pageMemories;
      for (let i = 0; i < 600 && memories.size === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const [tabId, entry] = [...memories][0] ?? [];
      return { lines: entry?.lines ?? [], badge: tabId === undefined ? '' : await (globalThis as unknown as { chrome: { action: { getBadgeText(d: { tabId: number }): Promise<string> } } }).chrome.action.getBadgeText({ tabId }) };
    });
    if (!found.lines.includes(FACT)) problems.push(`content script recalled ${JSON.stringify(found.lines)}`);
    if (found.badge !== '1') problems.push(`badge ${JSON.stringify(found.badge)}`);
    const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    if (databases.length) problems.push(`the website's origin lists databases ${JSON.stringify(databases)}`);
    if ((await page.content()).includes('Tuesdays')) problems.push('the memory is in the website\'s document');
    const owner = await worker.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    if (!owner.includes('notes')) problems.push(`the extension's origin lists ${JSON.stringify(owner)}`);
  } catch (error) {
    problems.push((error as Error).message.split('\n')[0]!);
  } finally {
    await context.close();
    await new Promise((resolve) => site.close(resolve));
    rmSync(profile, { recursive: true, force: true });
  }
  if (errors.length) problems.push(`console errors: ${errors.join(' | ')}`);
  return `${'extension'.padEnd(11)} ${problems.length ? `FAIL ${problems.join('; ')}` : 'ok'}  popup writes, content script recalls, website sees nothing; content.js ${(contentGzip / 1024).toFixed(1)} kB gzip`;
}
