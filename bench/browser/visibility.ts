/**
 * Cross-tab visibility in Chromium (issue 46): the Node bench
 * (bench/visibility.ts) with one tab per engine, each engine in its tab's
 * Web Worker on the packaged SDK and the offline model, all tabs of one
 * profile on one IndexedDB database. Every tab writes without pauses
 * (bench/visibility-loops.ts); every PROBE_EVERY_MS one tab, in turn, writes
 * a probe fact. For each other tab: the time from the probe's commit (the
 * writing tab hears its own `change` event, or the add resolves, whichever
 * comes first) to the first `recall` in that tab that returns it (each tab
 * recalls when it hears of the probe, and every few ms until the probe is in
 * the answer). Times are the tabs' `Date.now()`: one machine, one clock.
 *
 *   npm run bench:visibility:browser
 *
 * Environment: BENCH_ENGINES (6), BENCH_SECONDS (20), BENCH_PROBE_EVERY_MS (250), CHROMIUM_PATH.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium } from '../../test/support/browser.js';
import { percentile } from '../support.js';
import { writerLoop } from '../visibility-loops.js';

const ENGINES = Number(process.env.BENCH_ENGINES ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PROBE_EVERY_MS = Number(process.env.BENCH_PROBE_EVERY_MS ?? 250);
const NAME = `visibility-${Date.now()}`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** What this script keeps on each tab's window (the bare page's hook, and the run's state). */
interface Tab {
  engramDemo: { ready?: boolean; open(o: object): Promise<PageMemory> };
  memory: PageMemory;
  stop: { stopped: boolean };
  writes: Promise<number>;
  /** Probe id → when this tab committed it (the writer) or first recalled it (the others), Date.now(). */
  times: Record<string, number>;
  /** Probe id → when this tab heard of it (its `change` event: the index has it), Date.now(). */
  heard: Record<string, number>;
  probe(id: string, text: string): Promise<void>;
}
interface PageMemory {
  on(event: 'change', listener: (e: { written: string[] }) => void): void;
  facts: { add(input: object): Promise<unknown> };
  recall(q: string, o: object): Promise<{ memory: { id: string } }[]>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

await build({ configFile: here('../../test/browser/bare-page/vite.config.ts'), logLevel: 'error' });
const server = await startDemoServer({ pageDir: here('../../test/browser/bare-page/dist/') });
const browser = await launchChromium();
const context = await browser.newContext();
// tsx keeps function names with an `__name` helper, which functions sent into a page then call.
await context.addInitScript({ content: 'globalThis.__name = (f) => f;' });
try {
  const tabs: Page[] = [];
  for (let e = 0; e < ENGINES; e++) {
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => (window as unknown as Tab).engramDemo?.ready);
    await page.evaluate(
      async ({ name, loop, e }) => {
        const w = window as unknown as Tab;
        w.memory = await w.engramDemo.open({ name });
        w.times = {};
        w.heard = {};
        w.stop = { stopped: false };
        const probeText = (id: string) => `Probe ${id}: the locker code for the ${id.replace('probe-', 'n')} gym bag is written on the ticket`;
        const recallUntilSeen = async (id: string) => {
          while (w.times[id] === undefined) {
            const hits = await w.memory.recall(probeText(id), { userId: 'probe', k: 3, touch: false });
            if (hits.some((h) => h.memory.id === id)) w.times[id] ??= Date.now();
            else await new Promise((r) => setTimeout(r, 5));
          }
        };
        w.memory.on('change', (change) => {
          for (const id of change.written) {
            if (!id.startsWith('probe-') || w.times[id] !== undefined) continue;
            w.heard[id] ??= Date.now();
            void recallUntilSeen(id);
          }
        });
        w.probe = async (id) => {
          const writing = w.memory.facts.add({ id, userId: 'probe', text: probeText(id) });
          // This tab's own `change` event for the probe arrives when it commits; recallUntilSeen is not started for it.
          w.times[id] = Number.POSITIVE_INFINITY;
          await writing;
          w.times[id] = Math.min(w.times[id]!, Date.now());
        };
        const writer = new Function(`return (${loop})`)() as (m: PageMemory, e: number, stop: { stopped: boolean }) => Promise<number>;
        // (started only when every tab is open: see below)
        (w as unknown as { startWriting: () => void }).startWriting = () => void (w.writes = writer(w.memory, e, w.stop));
      },
      { name: NAME, loop: writerLoop.toString(), e },
    );
    tabs.push(page);
  }
  // The writer's own commit time: its `change` event for the probe, which the worker sends when the transaction completes.
  for (const tab of tabs) {
    await tab.evaluate(() => {
      const w = window as unknown as Tab;
      w.memory.on('change', (change) => {
        for (const id of change.written) if (w.times[id] === Number.POSITIVE_INFINITY) w.times[id] = Date.now();
      });
    });
  }
  console.log(`${ENGINES} Chromium tabs on one IndexedDB database, writing for ${SECONDS} s, a probe every ${PROBE_EVERY_MS} ms; load before ${load()}`);
  for (const tab of tabs) await tab.evaluate(() => (window as unknown as { startWriting: () => void }).startWriting());

  const stopAt = Date.now() + SECONDS * 1000;
  let probes = 0;
  while (Date.now() < stopAt) {
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    const id = `probe-${probes}`;
    const writer = tabs[probes % ENGINES]!;
    probes++;
    await writer.evaluate((id) => (window as unknown as Tab).probe(id, ''), id);
  }
  const written = await Promise.all(
    tabs.map((tab) =>
      tab.evaluate(async () => {
        const w = window as unknown as Tab;
        w.stop.stopped = true;
        const n = await w.writes;
        await w.memory.idle();
        return n;
      }),
    ),
  );
  // Late probes: recalls started from the last change events finish.
  await new Promise((r) => setTimeout(r, 1000));
  const loadAfter = load();
  const times = await Promise.all(tabs.map((tab) => tab.evaluate(() => (window as unknown as Tab).times)));
  const heard = await Promise.all(tabs.map((tab) => tab.evaluate(() => (window as unknown as Tab).heard)));
  const heardAfter: number[] = [];

  const latencies: number[] = [];
  let missing = 0;
  for (let p = 0; p < probes; p++) {
    const id = `probe-${p}`;
    const committed = times[p % ENGINES]![id]!;
    for (let e = 0; e < ENGINES; e++) {
      if (e === p % ENGINES) continue;
      const at = times[e]![id];
      if (at === undefined) missing++;
      else latencies.push(Math.max(0, at - committed));
      if (heard[e]![id] !== undefined) heardAfter.push(Math.max(0, heard[e]![id]! - committed));
    }
  }
  latencies.sort((a, b) => a - b);
  const over = (ms: number) => latencies.filter((l) => l > ms).length;
  console.log(
    `chromium: ${probes} probes x ${ENGINES - 1} tabs = ${latencies.length} checks (${missing} never seen), ${written.reduce((a, b) => a + b, 0)} background writes; ` +
      `visible to recall after p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms; ` +
      `> 250 ms: ${over(250)}, > 1 s: ${over(1000)}; heard (change event) after p50 ${percentile(heardAfter.sort((a, b) => a - b), 50).toFixed(0)} ms, p95 ${percentile(heardAfter, 95).toFixed(0)} ms; load average ${loadAfter}`,
  );
  for (const tab of tabs) await tab.evaluate(() => (window as unknown as Tab).memory.close());
} finally {
  await context.close();
  await browser.close();
  await server.close();
}
