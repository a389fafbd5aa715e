/**
 * How fast a dedicated worker reads a snapshot's page payloads back, in
 * Chromium with a profile on disk (as a user's browser): BENCH_MB pages of
 * 1 MB written once per layout, then read in fresh workers (median of 3):
 * files of the origin private file system read with sync access handles
 * into one reused buffer (what snapshot pages use in a worker:
 * src/index-sync/page-files.ts), IndexedDB Blobs read with
 * arrayBuffer() (what they use elsewhere), and Float32Arrays inside the
 * values.
 *
 *   npm run bench:payloads
 *   BENCH_MB=154 npm run bench:payloads   (100k × 384-d)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
const WORKER = `
const open = (name) => new Promise((res, rej) => { const r = indexedDB.open(name, 1); r.onupgradeneeded = () => r.result.createObjectStore('p'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
const done = (tx) => new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
onmessage = async ({ data: { op, layout, pages, bytes } }) => {
  if (layout === 'opfs') {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('snap', { create: true });
    if (op === 'write') {
      for (let p = 0; p < pages; p++) {
        const v = new Float32Array(bytes / 4).map((_, i) => i * 0.001 + p);
        const f = await dir.getFileHandle('page' + p, { create: true });
        const h = await f.createSyncAccessHandle(); h.truncate(0); h.write(new Uint8Array(v.buffer), { at: 0 }); h.flush(); h.close();
      }
      postMessage('ok'); return;
    }
    const t0 = performance.now();
    const names = []; for await (const [name] of dir.entries()) names.push(name);
    const t1 = performance.now();
    let total = 0; const buf = new Uint8Array(1 << 20);
    const handles = await Promise.all(names.map(async (n) => (await dir.getFileHandle(n)).createSyncAccessHandle()));
    for (const h of handles) { total += h.read(buf, { at: 0 }); h.close(); }
    postMessage({ get: t1 - t0, all: performance.now() - t0, total });
    return;
  }
  const db = await open(layout);
  if (op === 'write') {
    for (let p = 0; p < pages; p++) {
      const tx = db.transaction('p', 'readwrite');
      const v = new Float32Array(bytes / 4).map((_, i) => i * 0.001 + p);
      tx.objectStore('p').put(layout === 'blob' ? { payload: new Blob([v]) } : layout === 'f32' ? { payload: v } : { payload: v.buffer }, p);
      await done(tx);
    }
    postMessage('ok'); return;
  }
  const t0 = performance.now();
  const tx = db.transaction('p', 'readonly');
  const rows = await new Promise((res) => { const r = tx.objectStore('p').getAll(); r.onsuccess = () => res(r.result); });
  const t1 = performance.now();
  let total = 0;
  if (layout === 'blob') { const bufs = await Promise.all(rows.map((r) => r.payload.arrayBuffer())); for (const b of bufs) total += b.byteLength; }
  else for (const r of rows) total += r.payload.byteLength;
  postMessage({ get: t1 - t0, all: performance.now() - t0, total });
};`;
const server = createServer((req, res) => {
  if (req.url === '/w.js') { res.writeHead(200, { 'content-type': 'text/javascript' }); res.end(WORKER); return; }
  res.writeHead(200, { 'content-type': 'text/html' }); res.end('<script>window.run = (m) => new Promise((r) => { const w = new Worker("/w.js"); w.onmessage = (e) => { w.terminate(); r(e.data); }; w.postMessage(m); });</script>');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
const dir = mkdtempSync(join(tmpdir(), 'engram-payloads-'));
const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
const MB = Number(process.env.BENCH_MB ?? 52);
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const layout of ['opfs', 'blob', 'f32']) {
  let page = await ctx.newPage(); await page.goto(url);
  await page.evaluate((m) => (window as unknown as { run(m: object): Promise<{ all: number; total: number }> }).run(m), { op: 'write', layout, pages: MB, bytes: 1 << 20 });
  await page.close();
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    page = await ctx.newPage(); await page.goto(url);
    const r = await page.evaluate((m) => (window as unknown as { run(m: object): Promise<{ all: number; total: number }> }).run(m), { op: 'read', layout });
    if (r.total !== MB * (1 << 20)) throw new Error(`${layout}: read ${r.total} bytes, wrote ${MB * (1 << 20)}`);
    times.push(r.all);
    await page.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const what = { opfs: 'files, sync access handles, one reused buffer', blob: 'IndexedDB Blobs, arrayBuffer()', f32: 'IndexedDB, Float32Array in the value' }[layout];
  console.log(`${what}: ${MB} MB read in ${sorted[1]!.toFixed(0)} ms (median of 3: ${times.map((t) => t.toFixed(0)).join(', ')})`);
}
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await ctx.close();
server.close();
rmSync(dir, { recursive: true, force: true });
