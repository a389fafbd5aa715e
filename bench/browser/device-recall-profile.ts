/**
 * `npx tsx bench/browser/device-recall-profile.ts` (issue 45): where one
 * back-to-back `recall(text)` spends its time on a phone-class CPU. The device
 * benchmark's page and throttle (bench/browser/device.ts: page 4× by CDP, the
 * engine worker by the cgroup cap), 10,000 facts built unthrottled, one
 * session after a killed tab (as device.ts's "killed" session opens), the
 * engine worker built unminified from this worktree's source (served under
 * /profile/, the page's `&worker=`), then:
 * - 20 warm-up recalls, then `--recalls` (100) back-to-back recall(text)
 *   (`--warmup`) with the CDP CPU profiler on the page and on the engine worker;
 * - IndexedDB requests counted in the worker over the same recalls
 *   (IDBDatabase.transaction and the object store / index request methods
 *   wrapped through the worker's own prototypes, by store and mode);
 * - the recall latencies (p50, p95), the load average.
 * Prints inclusive ms (sum over the recalls) of the functions that matter,
 * the top self times of each thread, and the requests per recall; writes the
 * .cpuprofile files to `--out` (a folder) when given.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { percentile } from '../support.js';
import { syntheticTexts } from '../synthetic.js';
import { capWorker } from './device/calibrate.js';
import { startDeviceServer } from './device/server.js';
import { WorkerThreadCap } from './device/throttle.js';
import { WorkerSessions } from './device/worker-sessions.js';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '4' },
    recalls: { type: 'string', default: '100' },
    out: { type: 'string' },
    /** `floor`: the same session with the complete floor (bench/browser/device/complete-floor.ts) in the page's worker. */
    system: { type: 'string', default: 'engram' },
    /** Recalls before the measured ones; 0 measures from the first answer on, as device.ts's stream runs. */
    warmup: { type: 'string', default: '20' },
  },
});
const SIZE = Number(args.size);
const RATE = Number(args.rate);
const RECALLS = Number(args.recalls);
const WARMUP = Number(args.warmup);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Inclusive ms per function name (each sample counted once per name on its stack) and self ms per function name. */
function summarize(profile: CpuProfile): { inclusive: Map<string, number>; self: Map<string, number> } {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  const label = (n: ProfileNode) => n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber})`;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(id)!;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  });
  return { inclusive, self };
}

/** Counts the worker's IndexedDB transactions and requests (store:method or store:tx-mode) from when it is installed. */
const COUNT_IDB = `(() => {
  const counts = (globalThis.__idbCounts = {});
  const add = (key) => { counts[key] = (counts[key] ?? 0) + 1; };
  const tx = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    add('tx ' + (mode ?? 'readonly') + ' [' + [].concat(stores).join(',') + ']');
    return tx.call(this, stores, mode, ...rest);
  };
  for (const proto of [IDBObjectStore.prototype, IDBIndex.prototype]) {
    for (const method of ['get', 'getAll', 'getAllKeys', 'getKey', 'count', 'openCursor', 'openKeyCursor', 'put', 'add', 'delete', 'clear']) {
      const original = proto[method];
      if (typeof original !== 'function') continue;
      proto[method] = function (...a) {
        add(method + ' ' + (this.objectStore ? this.objectStore.name + '.' + this.name : this.name));
        return original.apply(this, a);
      };
    }
  }
  return true;
})()`;

const NAMES = [
  '(idle)',
  '(program)',
  '(garbage collector)',
  'rankAndRead',
  'ranked',
  'search',
  'readHits',
  'readByIds',
  'readQueryTimes',
  'vectorsFor',
  'record',
  'shown',
  'carryToFollowingTurns',
  'toWireValue',
  'postMessage',
  'flush',
  'saveSnapshot',
  'pace',
  'structuredClone',
  'parse',
  'safeParse',
];

const workerDir = mkdtempSync(join(tmpdir(), 'engram-profile-worker-'));
await build({
  entryPoints: [new URL('../../workers/engine.worker.ts', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  define: { ENGRAM_BROWSER_BUNDLE: 'true' },
  outfile: join(workerDir, 'engine.worker.js'),
  logLevel: 'warning',
});
const server = await startDeviceServer(workerDir);
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-device-profile-'));
const cap = WorkerThreadCap.available() ? new WorkerThreadCap(RATE) : undefined;
const name = args.system === 'floor' ? `device-floor-${SIZE}` : `device-${SIZE}`;
const question = (seed: number, count: number) => syntheticTexts(count, seed).map((t) => `what about ${t.split(' ').slice(0, 3).join(' ')}?`);
type Drive = { device: { recalls(q: string[]): Promise<{ latencies: number[] }>; adds(t: string[]): Promise<unknown> } };
try {
  {
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    context.setDefaultTimeout(600_000);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}?role=build`);
    await page.waitForFunction(() => 'device' in globalThis);
    await page.evaluate((config) => (globalThis as unknown as { device: { build(c: object): Promise<unknown> } }).device.build(config), { size: SIZE, engram: `device-${SIZE}`, floor: `device-floor-${SIZE}` });
    await context.close();
  }
  // Sessions as device.ts's: one that writes and is killed, then the measured one opens after that killed tab.
  for (const measured of [false, true]) {
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    context.setDefaultTimeout(600_000);
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
    const workers = await WorkerSessions.attach(cdp, async (sessionId, sessions) => {
      await sessions.send(sessionId, 'Emulation.setCPUThrottlingRate', { rate: RATE }).catch(async () => {
        if (cap) await capWorker(cap);
      });
    });
    await page.goto(`${server.url}?role=${args.system}&name=${name}${args.system === 'floor' ? '' : '&worker=/profile/engine.worker.js'}&q=${encodeURIComponent(question(measured ? 2 : 1, 1)[0]!)}`);
    await page.waitForFunction(() => (globalThis as unknown as { deviceStart?: { done: boolean } }).deviceStart?.done, undefined, { timeout: 600_000 });
    const start = await page.evaluate(() => (globalThis as unknown as { deviceStart: { error?: string } }).deviceStart);
    if (start.error) throw new Error(start.error);
    if (!measured) {
      await page.evaluate((t) => (globalThis as unknown as Drive).device.adds(t), syntheticTexts(20, 7));
      await context.close();
      continue;
    }
    const worker = workers.only();
    await page.evaluate((q) => (globalThis as unknown as Drive).device.recalls(q), question(3, WARMUP));
    await workers.evaluate(worker, COUNT_IDB);
    await workers.send(worker, 'Profiler.enable');
    await workers.send(worker, 'Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await workers.send(worker, 'Profiler.start');
    await cdp.send('Profiler.start');
    const { latencies } = await page.evaluate((q) => (globalThis as unknown as Drive).device.recalls(q), question(4, RECALLS));
    const pageProfile = (await cdp.send('Profiler.stop')).profile as unknown as CpuProfile;
    const workerProfile = (await workers.send<{ profile: CpuProfile }>(worker, 'Profiler.stop')).profile;
    const counts = await workers.evaluate<Record<string, number>>(worker, 'globalThis.__idbCounts');
    await context.close();
    const sorted = [...latencies].sort((a, b) => a - b);
    const wall = latencies.reduce((a, b) => a + b, 0);
    console.log(`${args.system}: ${RECALLS} recalls at ${RATE}× (worker ${cap ? `cgroup ${Math.round(cap.share * 100)}%` : 'CDP'}), ${SIZE} facts: wall sum ${wall.toFixed(0)} ms, p50 ${percentile(sorted, 50).toFixed(1)} p95 ${percentile(sorted, 95).toFixed(1)} ms; load ${load()}`);
    for (const [thread, profile] of [
      ['worker', workerProfile],
      ['page', pageProfile],
    ] as const) {
      const { inclusive, self } = summarize(profile);
      console.log(`\n${thread}: inclusive ms over the ${RECALLS} recalls`);
      for (const n of NAMES) if (inclusive.has(n)) console.log(`  ${n.padEnd(28)} ${inclusive.get(n)!.toFixed(1)}`);
      console.log(`${thread}: top self ms`);
      for (const [n, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${n.slice(0, 60).padEnd(60)} ${ms.toFixed(1)}`);
      if (args.out) {
        mkdirSync(args.out, { recursive: true });
        writeFileSync(join(args.out, `${thread}.cpuprofile`), JSON.stringify(profile));
      }
    }
    console.log(`\nIndexedDB in the worker over the ${RECALLS} recalls (count, per recall):`);
    for (const [key, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`  ${key.padEnd(60)} ${n} (${(n / RECALLS).toFixed(2)})`);
  }
} finally {
  cap?.release();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
  rmSync(workerDir, { recursive: true, force: true });
}
