/**
 * Where engram's engine worker spends an open on a phone-class CPU (issue 45):
 * the device page (bench/browser/device/dist, built) opened after a killed
 * tab under 4× (page: DevTools; worker: the cgroup cap of
 * ./device/throttle.ts), with the engine worker built from this worktree's
 * source (served under /profile/, the page's `&worker=`) and the DevTools CPU
 * profiler started on it before its first line runs. Prints, per run, when
 * the worker was created (from navigation) and the first answer, then the
 * worker's timeline in `--bucket` ms slices (the frames that took most of
 * each, by the top-level function they ran under) and the functions with the
 * most self time up to the first answer.
 *
 *   npx tsx bench/browser/worker-open-profile.ts [--size 10000] [--runs 2] [--bucket 100] [--out <dir>]
 *
 * Under the cap the profiler still samples while the kernel holds the thread
 * back, so a frame's samples are its wall time, not its CPU: read them as
 * where the wait went. `--minify` builds the worker as the package ships it
 * (names then are the minifier's).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { capWorker } from './device/calibrate.js';
import { startDeviceServer } from './device/server.js';
import { WorkerThreadCap } from './device/throttle.js';
import { WorkerSessions } from './device/worker-sessions.js';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '2' },
    bucket: { type: 'string', default: '100' },
    out: { type: 'string' },
    minify: { type: 'boolean', default: false },
  },
});
const SIZE = Number(args.size);
const BUCKET_MS = Number(args.bucket);

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

const workerDir = mkdtempSync(join(tmpdir(), 'engram-open-profile-'));
await build({
  entryPoints: [resolve(import.meta.dirname, '../../workers/engine.worker.ts')],
  bundle: true,
  format: 'esm',
  splitting: true,
  outdir: workerDir,
  platform: 'browser',
  minify: args.minify,
  define: { ENGRAM_BROWSER_BUNDLE: 'true' },
  logLevel: 'warning',
});
const cap = WorkerThreadCap.available() ? new WorkerThreadCap(4) : undefined;
const server = await startDeviceServer(workerDir, () => resolve(import.meta.dirname, 'device/dist'));
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-open-profile-store-'));
const name = `open-profile-${SIZE}`;
const label = (node: Profile['nodes'][number]) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop() ?? ''}`.trim();

function report(profile: Profile, until: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const buckets: Map<string, number>[] = [];
  const self = new Map<string, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]! / 1000;
    if (at > until) return;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const chain: Profile['nodes'][number][] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) chain.unshift(byId.get(cur)!);
    const leaf = chain[chain.length - 1]!;
    const key = `${chain[1] ? label(chain[1]) : '-'} › ${label(leaf)}`;
    const bucket = (buckets[Math.floor(at / BUCKET_MS)] ??= new Map());
    bucket.set(key, (bucket.get(key) ?? 0) + ms);
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const lines = ['  timeline (worker ms from its creation; the frames that took most of each slice):'];
  buckets.forEach((m, b) => {
    if (m) lines.push(`  ${String(b * BUCKET_MS).padStart(6)}  ${top(m, 3).map(([k, ms]) => `${ms.toFixed(0)} ms ${k}`).join(' | ')}`);
  });
  lines.push('  self time up to the first answer:', ...top(self, 20).map(([k, ms]) => `  ${ms.toFixed(1).padStart(8)} ms  ${k}`));
  return lines;
}

try {
  {
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    context.setDefaultTimeout(600_000);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}?role=build`);
    await page.waitForFunction(() => 'device' in globalThis);
    await page.evaluate((c) => (globalThis as unknown as { device: { build(c: object): Promise<unknown> } }).device.build(c), { size: SIZE, engram: name, floor: `${name}-floor` });
    // Killed, not closed: each run below opens after a killed tab.
    await context.close();
  }
  console.log(`worker open profile: ${SIZE} memories, 4× (page: DevTools; worker: ${cap ? 'cgroup cap' : 'not capped'}), load ${loadavg()[0]!.toFixed(1)}`);
  for (let run = 0; run < Number(args.runs); run++) {
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
    context.setDefaultTimeout(600_000);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      const workers = await WorkerSessions.attach(cdp, async (id, sessions) => {
        if (cap) await capWorker(cap);
        await sessions.send(id, 'Profiler.enable');
        await sessions.send(id, 'Profiler.setSamplingInterval', { interval: 500 });
        await sessions.send(id, 'Profiler.start');
      });
      await page.goto(`${server.url}?role=engram&name=${name}&q=hello&worker=/profile/engine.worker.js`);
      await page.waitForFunction(() => (globalThis as unknown as { deviceStart?: { done: boolean } }).deviceStart?.done);
      const start = await page.evaluate(() => ({ ...(globalThis as unknown as { deviceStart: { first: number; error?: string } }).deviceStart, origin: performance.timeOrigin }));
      if (start.error) throw new Error(start.error);
      const id = workers.only();
      const origin = await workers.evaluate<number>(id, 'performance.timeOrigin');
      const { profile } = await workers.send<{ profile: Profile }>(id, 'Profiler.stop');
      const created = origin - start.origin;
      console.log(`\nrun ${run + 1}: worker created ${created.toFixed(0)} ms after navigation; first answer ${start.first.toFixed(0)} ms (${(start.first - created).toFixed(0)} ms of the worker); load ${loadavg()[0]!.toFixed(1)}`);
      console.log(report(profile, start.first - created).join('\n'));
      if (args.out) {
        mkdirSync(args.out, { recursive: true });
        writeFileSync(join(args.out, `worker-open-${run + 1}.cpuprofile`), JSON.stringify(profile));
      }
    } finally {
      await context.close();
    }
  }
} finally {
  cap?.release();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
  rmSync(workerDir, { recursive: true, force: true });
}
