/**
 * `observe()` without an LLM on a phone-class CPU (issue 45), paired: the
 * same store, the same origin, base and new builds of the device page
 * (bench/browser/device/page.ts) served in turns, each beside the complete
 * floor (./device/complete-floor.ts) in the same session, so every figure has
 * an engram/floor ratio of its own run (the load-fair reading on a shared
 * machine).
 *
 *   npx tsx bench/browser/device-observe.ts --base /work/wt-base/bench/browser/device/dist --pairs 3
 *
 * Each side is a built page (`npx tsup --silent && npx vite build --config
 * bench/browser/device/vite.config.ts` in its worktree). The store (10,000
 * facts by default) is built once, unthrottled, by the new side. Each run
 * opens a throttled session (page: CDP 4×; workers: the cgroup cap of
 * ./device/throttle.ts), waits for idle(), 3 warm-up observes, idle(), then
 * `--observes` timed observes, and closes cleanly; then the floor the same
 * way. Pairs alternate which side goes first. The turns observed are
 * consecutive turns of real chat (../chat-turns.ts), the same for both sides
 * and the floor within a pair; each run also reports its slowest observe and
 * the first one whose turns hold a relative time ("last week"), which is
 * the first to run the time reader.
 *
 * `--cold`: no warm-up observes, so the first timed one is the session's
 * first write (as in bench:device, where it was each run's slowest).
 *
 * `--settle <ms>`: waits that long before the timed observes, so the keyword
 * postings an open deferred (index-sync/keyword-warmup.ts) are built by then:
 * what the observes cost without that build beside them.
 *
 * `--profile <dir>`: one run of the new side only, with an unminified engine
 * worker (`--worker <file>`, e.g. `npx esbuild workers/engine.worker.ts
 * --bundle --format=esm --platform=browser --define:ENGRAM_BROWSER_BUNDLE=true
 * --outfile=<dir>/engine.worker.js`), a CDP CPU profile of the worker and of
 * the page over the timed observes, the worker's IndexedDB calls counted
 * (prototype wrappers), and a per-function breakdown (inclusive ms per observe).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { median, percentile } from '../support.js';
import { timeMentions } from '../../src/time/time-mentions.js';
import { chatTurns } from '../chat-turns.js';
import { capWorker } from './device/calibrate.js';
import { startDeviceServer } from './device/server.js';
import { WorkerThreadCap } from './device/throttle.js';
import { WorkerSessions } from './device/worker-sessions.js';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    size: { type: 'string', default: '10000' },
    pairs: { type: 'string', default: '3' },
    observes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '4' },
    profile: { type: 'string' },
    worker: { type: 'string' },
    /** No warm-up observes: the timed ones (and the profile) start with the session's first write, as bench:device's do. */
    cold: { type: 'boolean', default: false },
    /** Milliseconds to wait before the timed observes (the deferred keyword build done by then). */
    settle: { type: 'string', default: '0' },
  },
});
const SIZE = Number(args.size);
const OBSERVES = Number(args.observes);
const RATE = Number(args.rate);
const cap = WorkerThreadCap.available() ? new WorkerThreadCap(RATE) : undefined;
const load = () => loadavg()[0]!.toFixed(1);
const sides: Record<string, string> = { new: resolve(import.meta.dirname, 'device/dist') };
if (args.base) sides.base = resolve(args.base);
let root = sides.new!;
const profileDir = args.profile ? resolve(args.profile) : mkdtempSync(join(tmpdir(), 'engram-observe-profile-'));
if (args.worker) {
  mkdirSync(profileDir, { recursive: true });
  copyFileSync(args.worker, join(profileDir, basename(args.worker)));
}
const server = await startDeviceServer(profileDir, () => root);
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-observe-'));
const names = { engram: `observe-${SIZE}`, floor: `observe-floor-${SIZE}` };

type Drive = { device: { observes(t: string[]): Promise<{ latencies: number[] }>; idle(): Promise<void>; close(): Promise<number> } };

/** Counts the worker's IndexedDB calls: transactions opened, requests made, by method. */
const COUNT_IDB = `(() => {
  const counts = (globalThis.__idb = {});
  const wrap = (proto, name, label) => {
    const original = proto[name];
    proto[name] = function (...a) { const key = label + '.' + name + (name === 'transaction' ? '(' + a[1] + ')' : ''); counts[key] = (counts[key] ?? 0) + 1; return original.apply(this, a); };
  };
  wrap(IDBDatabase.prototype, 'transaction', 'db');
  for (const m of ['put', 'add', 'get', 'getAll', 'getAllKeys', 'getKey', 'delete', 'clear', 'count', 'openCursor', 'openKeyCursor']) {
    if (IDBObjectStore.prototype[m]) wrap(IDBObjectStore.prototype, m, 'store');
    if (IDBIndex.prototype[m]) wrap(IDBIndex.prototype, m, 'index');
  }
  for (const m of ['continue', 'advance']) wrap(IDBCursor.prototype, m, 'cursor');
  return true;
})()`;

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Inclusive and self ms per function (name:line), each sample counted once per function on its stack. */
function breakdown(profile: Profile, per: number): string[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anonymous)'} ${basename(f.url)}:${f.lineNumber + 1}`;
  };
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    self.set(label(id), (self.get(label(id)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(at);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + ms);
    }
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([l, ms]) => `  ${(ms / per).toFixed(2).padStart(7)} ms/observe  ${l}`);
  return ['inclusive:', ...top(inclusive, 70), 'self:', ...top(self, 30)];
}

async function session(system: 'engram' | 'floor', texts: string[], profiling = false) {
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
  context.setDefaultTimeout(600_000);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
    const workers = await WorkerSessions.attach(cdp, async () => {
      if (cap) await capWorker(cap);
    });
    const worker = profiling && args.worker ? `&worker=/profile/${basename(args.worker)}` : '';
    await page.goto(`${server.url}?role=${system}&name=${names[system]}&q=hello${worker}`);
    await page.waitForFunction(() => (globalThis as unknown as { deviceStart?: { done: boolean } }).deviceStart?.done, undefined, { timeout: 600_000 });
    const error = await page.evaluate(() => (globalThis as unknown as { deviceStart: { error?: string } }).deviceStart.error);
    if (error) throw new Error(`${system}: ${error}`);
    const drive = (t: string[]) => page.evaluate((x) => (globalThis as unknown as Drive).device.observes(x), t);
    await page.evaluate(() => (globalThis as unknown as Drive).device.idle());
    if (!args.cold) {
      await drive(texts.slice(0, 6));
      await page.evaluate(() => (globalThis as unknown as Drive).device.idle());
    }
    if (Number(args.settle) > 0) await page.waitForTimeout(Number(args.settle));
    const id = workers.only();
    let report: string[] = [];
    if (profiling) {
      await workers.evaluate(id, COUNT_IDB);
      await workers.send(id, 'Profiler.enable');
      await workers.send(id, 'Profiler.setSamplingInterval', { interval: 200 });
      await workers.send(id, 'Profiler.start');
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const { latencies } = await drive(texts.slice(6));
    if (profiling) {
      const { profile } = await workers.send<{ profile: Profile }>(id, 'Profiler.stop');
      const { profile: pageProfile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
      const counts = await workers.evaluate<Record<string, number>>(id, 'globalThis.__idb');
      writeFileSync(join(profileDir, `worker-${system}.cpuprofile`), JSON.stringify(profile));
      writeFileSync(join(profileDir, `page-${system}.cpuprofile`), JSON.stringify(pageProfile));
      const n = latencies.length;
      report = [
        `${system}: IndexedDB calls per observe: ${Object.entries(counts)
          .sort()
          .map(([k, v]) => `${k} ${(v / n).toFixed(1)}`)
          .join(', ')}`,
        `${system} worker:`,
        ...breakdown(profile, n),
        `${system} page:`,
        ...breakdown(pageProfile, n).slice(0, 25),
      ];
    }
    await page.evaluate(() => (globalThis as unknown as Drive).device.close());
    const sorted = [...latencies].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), report, latencies };
  } finally {
    await context.close();
  }
}

try {
  {
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    context.setDefaultTimeout(600_000);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}?role=build`);
    await page.waitForFunction(() => 'device' in globalThis);
    await page.evaluate((c) => (globalThis as unknown as { device: { build(c: object): Promise<unknown> } }).device.build(c), { size: SIZE, ...names });
    await context.close();
    console.log(`${SIZE} memories built; load ${load()}`);
  }
  let seed = 5000;
  const texts = () => chatTurns(2 * (OBSERVES + 3), seed++);
  if (args.profile) {
    for (const system of ['engram', 'floor'] as const) {
      const r = await session(system, texts(), true);
      console.log(`${system}: observe p50 ${r.p50.toFixed(1)} p95 ${r.p95.toFixed(1)} ms (in order: ${r.latencies.map((ms) => ms.toFixed(0)).join(' ')}); load ${load()}`);
      console.log(r.report.join('\n'));
    }
  } else {
    const rows: Record<string, { p50: number; p95: number; r50: number; r95: number; max: number; firstTimed: number }[]> = { base: [], new: [] };
    for (let pair = 0; pair < Number(args.pairs); pair++) {
      const order = Object.keys(sides).sort((a, b) => (pair % 2 === 0 ? a.localeCompare(b) : b.localeCompare(a)));
      // Both sides, and the floor, observe the same turns in a pair.
      const pairTexts = texts();
      // The timed observes whose turns hold a relative time (the ones that run the time reader, time/time-mentions.ts).
      const timed = pairTexts.slice(6);
      const withTime = Array.from({ length: timed.length / 2 }, (_, i) => timeMentions(timed[2 * i]!, Date.now()).length + timeMentions(timed[2 * i + 1]!, Date.now()).length > 0);
      const firstWithTime = withTime.indexOf(true);
      for (const side of order) {
        root = sides[side]!;
        const e = await session('engram', pairTexts);
        const f = await session('floor', pairTexts);
        const firstTimed = firstWithTime < 0 ? NaN : e.latencies[firstWithTime]!;
        const row = { p50: e.p50, p95: e.p95, r50: e.p50 / f.p50, r95: e.p95 / f.p95, max: Math.max(...e.latencies), firstTimed };
        rows[side]!.push(row);
        console.log(
          `pair ${pair + 1} ${side.padEnd(4)}: engram op50 ${e.p50.toFixed(1)} op95 ${e.p95.toFixed(1)} max ${row.max.toFixed(1)} ms, the first observe with a time word (#${firstWithTime + 1} of ${withTime.length}; ${withTime.filter(Boolean).length} have one) ${firstTimed.toFixed(1)} ms | floor op50 ${f.p50.toFixed(1)} op95 ${f.p95.toFixed(1)} ms | engram/floor op50 ${row.r50.toFixed(2)}× op95 ${row.r95.toFixed(2)}× | load ${load()}`,
        );
      }
    }
    for (const side of Object.keys(sides)) {
      const r = rows[side]!;
      const m = (pick: (x: (typeof r)[number]) => number) => median(r.map(pick));
      console.log(
        `${side.padEnd(4)} medians of ${r.length}: op50 ${m((x) => x.p50).toFixed(1)} op95 ${m((x) => x.p95).toFixed(1)} max ${m((x) => x.max).toFixed(1)} ms, the first observe with a time word ${m((x) => x.firstTimed).toFixed(1)} ms; engram/floor op50 ${m((x) => x.r50).toFixed(2)}× op95 ${m((x) => x.r95).toFixed(2)}×`,
      );
    }
  }
} finally {
  cap?.release();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
