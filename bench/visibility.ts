/**
 * Cross-engine visibility (issue 46): six engines on one database, each
 * writing without pauses (facts, turns and episodes, back to back), and
 * every PROBE_EVERY_MS one of them (in turn) writes a probe fact. For each
 * other engine, the time from the probe's commit (the writing engine's own
 * `change` event, emitted when its transaction completes) to the first
 * `recall` in that engine that returns the probe: each receiving engine
 * recalls as soon as it hears of the probe (its `change` event), and again
 * every few ms until the probe is in the answer. p50/p95/max over every
 * (probe, receiving engine) pair, with the load average.
 *
 *   npm run bench:visibility            (Node: engines on one fake-indexeddb factory, in one process)
 *   npm run bench:visibility:browser    (Chromium: one tab per engine, each engine in its tab's worker)
 *
 * Environment: BENCH_ENGINES (6), BENCH_SECONDS (20), BENCH_PROBE_EVERY_MS (250).
 */
import { loadavg } from 'node:os';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, type Memory } from '../src/index.js';
import { offlineEmbedder, percentile } from './support.js';
import { writerLoop, type VisibilityMemory } from './visibility-loops.js';

const ENGINES = Number(process.env.BENCH_ENGINES ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PROBE_EVERY_MS = Number(process.env.BENCH_PROBE_EVERY_MS ?? 250);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main() {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  const embedder = await offlineEmbedder();
  const engines: Memory[] = [];
  for (let i = 0; i < ENGINES; i++) engines.push(await createMemory({ name: 'visibility', ...idb, embedder }));
  console.log(`${ENGINES} engines on one fake-indexeddb database, writing for ${SECONDS} s, a probe every ${PROBE_EVERY_MS} ms; load before ${load()}`);

  // When each engine's index answered each probe: probe id → engine → ms after the probe's commit.
  const committedAt = new Map<string, number>();
  const seen = new Map<string, Map<number, number>>();
  // When each engine heard of each probe (its `change` event: its index has it): ms after the commit.
  const heardAfter: number[] = [];
  engines.forEach((memory, e) => {
    memory.on('change', (change) => {
      const now = performance.now();
      for (const id of change.written) {
        if (!id.startsWith('probe-')) continue;
        if (!committedAt.has(id)) committedAt.set(id, now);
        else {
          heardAfter.push(now - committedAt.get(id)!);
          void recallUntilSeen(memory, e, id);
        }
      }
    });
  });
  const recallUntilSeen = async (memory: Memory, e: number, id: string) => {
    const text = probeText(id);
    for (let tries = 0; tries < 10_000; tries++) {
      const hits = await memory.recall(text, { userId: 'probe', k: 3, touch: false });
      if (hits.some((h) => h.memory.id === id)) {
        const at = seen.get(id) ?? new Map<number, number>();
        seen.set(id, at);
        if (!at.has(e)) at.set(e, performance.now() - committedAt.get(id)!);
        return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  const stop = { at: performance.now() + SECONDS * 1000, stopped: false };
  const writes = engines.map((memory, e) => writerLoop(memory as unknown as VisibilityMemory, e, stop));
  let probes = 0;
  const probing = (async () => {
    while (performance.now() < stop.at) {
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      const id = `probe-${probes}`;
      const writer = engines[probes % ENGINES]!;
      probes++;
      await writer.facts.add({ id, userId: 'probe', text: probeText(id) });
    }
  })();
  await probing;
  stop.stopped = true;
  const written = await Promise.all(writes);
  for (const m of engines) await m.idle();
  // Late probes: every engine has heard them by now (idle waits for the refreshes heard so far).
  await new Promise((r) => setTimeout(r, 500));
  const loadAfter = load();

  const latencies: number[] = [];
  let missing = 0;
  for (let p = 0; p < probes; p++) {
    const id = `probe-${p}`;
    for (let e = 0; e < ENGINES; e++) {
      if (e === p % ENGINES) continue;
      const ms = seen.get(id)?.get(e);
      if (ms === undefined) missing++;
      else latencies.push(ms);
    }
  }
  latencies.sort((a, b) => a - b);
  const over = (ms: number) => latencies.filter((l) => l > ms).length;
  console.log(
    `node: ${probes} probes x ${ENGINES - 1} engines = ${latencies.length} checks (${missing} never seen), ${written.reduce((a, b) => a + b, 0)} background writes; ` +
      `visible to recall after p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms; ` +
      `> 250 ms: ${over(250)}, > 1 s: ${over(1000)}; heard (change event) after p50 ${percentile(heardAfter.sort((a, b) => a - b), 50).toFixed(0)} ms, p95 ${percentile(heardAfter, 95).toFixed(0)} ms; load average ${loadAfter}`,
  );
  for (const m of engines) await m.close();
}

function probeText(id: string): string {
  return `Probe ${id}: the locker code for the ${id.replace('probe-', 'n')} gym bag is written on the ticket`;
}

await main();
