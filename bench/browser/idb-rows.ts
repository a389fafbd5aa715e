/**
 * Raw IndexedDB writes in Chromium, no engram: fact-shaped rows under each
 * storage layout, from a dedicated worker (as engram's engine writes), 1,000
 * rows per transaction. `npm run bench:idb` prints every layout;
 * `npm run bench:browser` measures engram's own layout and the per-request
 * floor in the same sitting, as the baseline of its durable insert figure.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { median } from '../support.js';

export const BATCH = 1_000;

/** The layouts, as [name, what it is]; the worker below knows how to write each. */
export const LAYOUTS: [string, string][] = [
  ['rowPerVector', 'v3: fact row (6 indexes) + a vector row per memory'],
  ['engram', "engram's (v6): fact row (3 indexes) + vector blocks of 256 (*ids index), the write mark read and written and two log rows per transaction"],
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
  engram: { stores: { facts: V4_FACT, blocks: BLOCK, meta: [], log: [] }, write(tx, s, n, dim) {
    tx.objectStore('meta').get('writeMark');
    for (let i = s; i < s + n; i++) tx.objectStore('facts').put(fact(i));
    for (let b = s; b < s + n; b += 256) block(tx, b, Math.min(256, s + n - b), dim);
    tx.objectStore('meta').put({ id: 'writeMark', value: 'mark-' + s });
    const ids = []; for (let i = s; i < s + n; i++) ids.push('m' + i);
    tx.objectStore('log').put({ id: 'f' + s, ids });
    tx.objectStore('log').put({ id: 'b' + s, ids, blocks: ['b' + s] });
  } },
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

/**
 * Rows/s of `layout` at `dimension`: `rows` fact-shaped rows in transactions of BATCH, each run in a
 * fresh database (deleted after), the median of `runs`. Uses a page of its own in `context`.
 */
export async function measureLayout(context: BrowserContext, layout: string, dimension: number, rows: number, runs: number): Promise<number> {
  const server = createServer((req, res) => {
    const worker = req.url === '/worker.js';
    res.setHeader('content-type', worker ? 'text/javascript' : 'text/html');
    res.end(worker ? WORKER : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const rates: number[] = [];
    // A layout's runs back to back, nothing interleaved.
    for (let run = 0; run < runs; run++) {
      rates.push(await page.evaluate((m) => (window as unknown as { measure(m: unknown): Promise<number> }).measure(m), { layout, dim: dimension, rows, batch: BATCH, run }));
    }
    return median(rates);
  } finally {
    await page.close();
    server.close();
  }
}
