/**
 * Sync between memories (npm run bench:sync), real parts on loopback: each
 * memory has its own store (fake-indexeddb) and the real offline model, the
 * hub is createSyncHandler on PGlite served by Node's http.
 *
 * 1. A new device joins a space of MEMORIES facts (default 10,000) pushed
 *    by another: time to its first usable recall (the first pulled batch
 *    applied and a recall answering from it), time to the whole space,
 *    bytes pulled on the wire and bytes in Postgres per memory.
 * 2. A→B latency: both started with a 250 ms poll (POLL_MS); A writes a
 *    fact every ~300 ms; the time from A's write resolving to B's `change`
 *    event for it, p50/p95 over SAMPLES (default 30).
 * Printed with the load average (2 cores shared: read figures with it).
 * MEMORIES=100000 SAMPLES=0 measures the 100k join alone.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, loadTransformersEmbedder, type Memory } from '../src/index.js';
import { createSyncHandler, pgliteSyncStore } from '../src/server.js';
import { bearerSpaces, serveOnLoopback } from '../test/support/sync-hub.js';

const MEMORIES = Number(process.env.MEMORIES ?? 10_000);
const SAMPLES = Number(process.env.SAMPLES ?? 30);
const POLL_MS = Number(process.env.POLL_MS ?? 250);
const SECRET = 'a benchmark secret of 32 bytes or more';
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

const embedder = await loadTransformersEmbedder({ model: 'minishlab/potion-base-4M-int8', localModelPath: fileURLToPath(new URL('../../shared/models/', import.meta.url)) });
const db = await PGlite.create();
const handler = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ bench: 'bench' }) });
const hub = await serveOnLoopback(handler);
let pulledBytes = 0;
const countingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (String(input).includes('/pull')) {
    const body = await response.arrayBuffer();
    pulledBytes += body.byteLength;
    return new Response(body, { status: response.status, headers: response.headers });
  }
  return response;
};
let names = 0;
const device = (options: { intervalMs?: number; autoStart?: boolean } = {}): Promise<Memory> =>
  createMemory({
    name: `bench-sync-${++names}`,
    indexedDB: new IDBFactory(),
    IDBKeyRange,
    embedder,
    sync: { remote: { url: hub.url, headers: { authorization: 'Bearer bench' }, fetch: countingFetch }, key: { secret: SECRET }, space: 'bench', autoStart: false, ...options },
  });

const TOPICS = ['ferry', 'garden', 'passport', 'invoice', 'piano', 'bicycle', 'dentist', 'recipe', 'laptop', 'train'];
console.log(`sync bench: ${MEMORIES.toLocaleString('en')} memories, load average ${load()}`);

// 1. The space: A writes MEMORIES facts and pushes them.
const a = await device();
for (let i = 0; i < MEMORIES; i += 5000) {
  const count = Math.min(5000, MEMORIES - i);
  await a.facts.addMany(
    Array.from({ length: count }, (_, j) => ({ userId: 'ana', text: `Note ${i + j} about the ${TOPICS[(i + j) % TOPICS.length]}: item ${(i + j) * 7919 % 10007} was filed under shelf ${(i + j) % 97}` })),
    { returnRecords: false },
  );
}
let started = performance.now();
const pushed = await a.sync.now();
console.log(`A pushed ${pushed.pushed.toLocaleString('en')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const stored = (await db.query<{ bytes: string }>(`SELECT pg_total_relation_size('engram_sync_changes')::text AS bytes`)).rows[0]!.bytes;

// A new device joins.
const b = await device();
pulledBytes = 0;
started = performance.now();
let firstRecall: number | undefined;
const firstRecallDone = new Promise<void>((resolve) => {
  const stop = b.on('change', () => {
    stop();
    void b.recall('which shelf is the passport note on', { userId: 'ana', k: 5, touch: false }).then((hits) => {
      firstRecall = performance.now() - started;
      if (hits.length === 0) console.log('  (first recall answered with no hits)');
      resolve();
    });
  });
});
const joined = await b.sync.now();
const total = performance.now() - started;
await firstRecallDone;
const answer = await b.recall('which shelf is the passport note on', { userId: 'ana', k: 5, touch: false });
console.log(
  `new device joining: first usable recall ${(firstRecall! / 1000).toFixed(2)} s, whole space ${(total / 1000).toFixed(1)} s (${joined.applied.toLocaleString('en')} changes, ${joined.batches} batches); ` +
    `${Math.round(pulledBytes / MEMORIES)} B/memory on the wire, ${Math.round(Number(stored) / MEMORIES)} B/memory in Postgres; recall after: ${answer.length} hits; load ${load()}`,
);
await a.close();
await b.close();

// 2. A→B latency with a poll of POLL_MS (SAMPLES=0 skips it: both devices would first join the whole space again).
if (SAMPLES > 0) await latency();
await hub.close();
await db.close();

async function latency(): Promise<void> {
  const a2 = await device({ intervalMs: POLL_MS });
  const b2 = await device({ intervalMs: POLL_MS });
  await a2.sync.start();
  await b2.sync.start();
  // Both past the 10k space before measuring.
  await b2.sync.now();
  await a2.sync.now();
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const text = `Latency probe ${i}: the meeting moved to room ${100 + i}`;
    let writtenAt = 0;
    let id = '';
    const seen = new Promise<void>((resolve) => {
      const stop = b2.on('change', (event) => {
        if (!id || !event.written.includes(id)) return;
        latencies.push(performance.now() - writtenAt);
        stop();
        resolve();
      });
    });
    const fact = await a2.facts.add({ userId: 'ana', text }, { merge: false });
    writtenAt = performance.now();
    id = fact.id;
    await seen;
    await new Promise((resolve) => setTimeout(resolve, 300 * Math.random()));
  }
  console.log(`A→B latency, ${POLL_MS} ms poll, ${SAMPLES} writes: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; load ${load()}`);
  await a2.close();
  await b2.close();
}
