/**
 * Raw IndexedDB in Chromium, no engram: how fast fact-shaped rows go in under
 * each storage layout, in a worker, 1,000 rows per transaction. This is the
 * measurement behind storing vectors in blocks (src/store/vector-blocks.ts)
 * and dropping the fact indexes no query used (src/store/database.ts v4):
 * Chromium charges mostly per request, so the number of rows per memory
 * matters more than their size.
 *
 *   npm run bench:idb               20,000 rows per layout, 128-d and 384-d, median of 3
 *   BENCH_ROWS=50000 BENCH_RUNS=5 npm run bench:idb
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { median, printTable } from '../support.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BATCH = 1_000;

/** The layouts, as [name, what it is]; the worker below knows how to write each. */
const LAYOUTS: [string, string][] = [
  ['rowPerVector', 'v3: fact row (6 indexes) + a vector row per memory'],
  ['blocks', 'v4: fact row (3 indexes) + one vector block per batch (*ids index)'],
  ['blocksOldIndexes', 'fact row (6 indexes) + one vector block per batch'],
  ['vectorInFactRow', 'fact row (6 indexes) holding its vector'],
  ['factsOnly', 'fact row (6 indexes), no vectors'],
  ['tinyRows', '{ id } rows, no index (the per-request floor)'],
  ['onePerBatch', 'one row holding the whole batch (what snapshot peers write)'],
];

/** Runs in a dedicated worker, as engram's engine does. Plain JS: it is served as is. */
const WORKER = String.raw`
const V3_FACT = [['userId','userId'],['uc',['userId','createdAt']],['ucat',['userId','category']],['us',['userId','status']],['sup','supersededBy'],['tags','tags',true]];
const V4_FACT = [['uc',['userId','createdAt']],['sup','supersededBy'],['tags','tags',true]];
const BLOCK = [['userId','userId'],['kind','kind'],['ids','ids',true]];
function fact(i, vector) {
  const now = 1700000000000 + i;
  const f = { id: 'm' + i, type: 'fact', userId: 'default', sessionId: null, text: 'memory ' + i + ' about the garden, the bike and the kitchen', category: 'other', importance: 0.5, pinned: false, tags: [], source: 'manual', status: 'current', validFrom: now, validUntil: null, supersededBy: null, metadata: {}, createdAt: now, updatedAt: now, lastAccessedAt: now };
  if (vector) f.vector = vector;
  return f;
}
function vector(dim, i) { const v = new Float32Array(dim); for (let j = 0; j < dim; j++) v[j] = Math.sin(i + j); return v; }
function block(tx, start, batch, dim) {
  const ids = []; const vectors = new Float32Array(batch * dim);
  for (let i = 0; i < batch; i++) { ids.push('m' + (start + i)); vectors.set(vector(dim, start + i), i * dim); }
  tx.objectStore('blocks').put({ id: 'b' + start, userId: 'default', kind: 'fact', ids, vectors });
}
const LAYOUTS = {
  rowPerVector: { stores: { facts: V3_FACT, vectors: [['userId','userId']] }, write(tx, s, n, dim) { for (let i = s; i < s + n; i++) { tx.objectStore('facts').put(fact(i)); tx.objectStore('vectors').put({ id: 'm' + i, userId: 'default', kind: 'fact', vector: vector(dim, i) }); } } },
  blocks: { stores: { facts: V4_FACT, blocks: BLOCK }, write(tx, s, n, dim) { for (let i = s; i < s + n; i++) tx.objectStore('facts').put(fact(i)); block(tx, s, n, dim); } },
  blocksOldIndexes: { stores: { facts: V3_FACT, blocks: BLOCK }, write(tx, s, n, dim) { for (let i = s; i < s + n; i++) tx.objectStore('facts').put(fact(i)); block(tx, s, n, dim); } },
  vectorInFactRow: { stores: { facts: V3_FACT }, write(tx, s, n, dim) { for (let i = s; i < s + n; i++) tx.objectStore('facts').put(fact(i, vector(dim, i))); } },
  factsOnly: { stores: { facts: V3_FACT }, write(tx, s, n) { for (let i = s; i < s + n; i++) tx.objectStore('facts').put(fact(i)); } },
  tinyRows: { stores: { facts: [] }, write(tx, s, n) { for (let i = s; i < s + n; i++) tx.objectStore('facts').put({ id: 'm' + i }); } },
  onePerBatch: { stores: { facts: [] }, write(tx, s, n) { const rows = []; for (let i = s; i < s + n; i++) rows.push(fact(i)); tx.objectStore('facts').put({ id: 'b' + s, rows }); } },
};
function open(name, stores) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => {
      for (const [store, indexes] of Object.entries(stores)) {
        const os = request.result.createObjectStore(store, { keyPath: 'id' });
        for (const [index, keyPath, multiEntry] of indexes) os.createIndex(index, keyPath, { multiEntry: !!multiEntry });
      }
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
onmessage = async ({ data: { layout, dim, rows, batch, run } }) => {
  const spec = LAYOUTS[layout];
  const name = layout + '-' + dim + '-' + run;
  const db = await open(name, spec.stores);
  const started = performance.now();
  for (let s = 0; s < rows; s += batch) {
    await new Promise((resolve, reject) => {
      const tx = db.transaction(Object.keys(spec.stores), 'readwrite');
      spec.write(tx, s, Math.min(batch, rows - s), dim);
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  }
  const ms = performance.now() - started;
  db.close();
  await new Promise((resolve) => { const r = indexedDB.deleteDatabase(name); r.onsuccess = r.onerror = resolve; });
  postMessage(rows / (ms / 1000));
};`;

const PAGE = `<!doctype html><script>
window.measure = (message) => new Promise((resolve, reject) => {
  const worker = new Worker('/worker.js');
  worker.onmessage = (e) => { resolve(e.data); worker.terminate(); };
  worker.onerror = (e) => reject(new Error(e.message));
  worker.postMessage(message);
});
</script>`;

async function main(): Promise<void> {
  const server = createServer((req, res) => {
    const worker = req.url === '/worker.js';
    res.setHeader('content-type', worker ? 'text/javascript' : 'text/html');
    res.end(worker ? WORKER : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // A persistent profile: IndexedDB on disk, as in a real browser.
  const profile = mkdtempSync(join(tmpdir(), 'engram-idb-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  try {
    const page = await context.newPage();
    await page.goto(url);
    const rows: (string | number)[][] = [];
    for (const [layout, what] of LAYOUTS) {
      const row: (string | number)[] = [layout, what];
      for (const dim of [128, 384]) {
        const rates: number[] = [];
        // Runs interleave nothing else: each layout's runs back to back, its median reported.
        for (let run = 0; run < RUNS; run++) {
          rates.push(await page.evaluate((m) => (window as unknown as { measure(m: unknown): Promise<number> }).measure(m), { layout, dim, rows: ROWS, batch: BATCH, run }));
        }
        row.push(Math.round(median(rates)));
      }
      rows.push(row);
    }
    printTable(
      `Raw IndexedDB in Chromium ${context.browser()?.version() ?? ''}: fact-shaped rows/s, ${ROWS.toLocaleString('en-US')} per layout in ${BATCH.toLocaleString('en-US')}-row transactions, in a worker, median of ${RUNS}`,
      ['layout', 'what is written per memory', '128-d rows/s', '384-d rows/s'],
      rows,
    );
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
