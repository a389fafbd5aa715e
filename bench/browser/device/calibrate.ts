import { cpus, loadavg } from 'node:os';
import type { BrowserContext, CDPSession } from 'playwright-core';
import { median } from '../../support.js';
import { cpuMs, WorkerThreadCap, type Thread } from './throttle.js';
import { WorkerSessions } from './worker-sessions.js';

/**
 * The device model each figure is printed beside, measured rather than
 * assumed: the same busy loop (fixed work, no allocation) timed on the page's
 * main thread with and without `Emulation.setCPUThrottlingRate`, and in a
 * worker with and without its cap (./throttle.ts), in turns, medians of
 * `rounds`; the share of a core the capped worker got while busy (its CPU
 * time over the wall time); and the share of a core the throttled page's
 * idle main thread burns (Chromium's throttle spins in a signal handler, so a
 * throttled page costs CPU even when it does nothing).
 */
export interface DeviceModel {
  rate: number;
  cores: number;
  /** The 1-, 5- and 15-minute load averages when the model was measured. */
  load: number[];
  page: { freeMs: number; throttledMs: number; factor: number; idleSpinShare: number };
  worker: { freeMs: number; cappedMs: number; factor: number; cappedCpuShare: number; capShare: number };
}

const BUSY = `(() => { const t0 = performance.now(); let x = 0; for (let i = 0; i < 2e7; i++) x += Math.sqrt(i); return performance.now() - t0 + (x < 0 ? 1 : 0); })()`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Caps the worker a page just started, as soon as its thread shows (the attach event can come first). */
export async function capWorker(cap: WorkerThreadCap, timeoutMs = 10_000): Promise<Thread> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [thread] = cap.capNew();
    if (thread) return thread;
    if (Date.now() > until) throw new Error('no new DedicatedWorker thread to cap');
    await sleep(2);
  }
}

export async function calibrate(context: BrowserContext, url: string, cap: WorkerThreadCap, rounds = 3): Promise<DeviceModel> {
  const page = await context.newPage();
  try {
    const cdp: CDPSession = await context.newCDPSession(page);
    const throttle = (rate: number) => cdp.send('Emulation.setCPUThrottlingRate', { rate });
    // Throttled before the navigation, as every measured page is: the first timing shows it held across the navigation.
    await throttle(cap.rate);
    let capped: Promise<Thread> | undefined;
    const workers = await WorkerSessions.attach(cdp, () => {
      capped = capWorker(cap);
    });
    await page.goto(`${url}?role=idle`);
    while (!capped) await sleep(10);
    const thread = await capped;
    const session = workers.only();
    const pageTimes = { free: [] as number[], throttled: [(await page.evaluate(BUSY)) as number] };
    for (let round = 0; round < rounds; round++) {
      await throttle(1);
      pageTimes.free.push((await page.evaluate(BUSY)) as number);
      await throttle(cap.rate);
      pageTimes.throttled.push((await page.evaluate(BUSY)) as number);
    }
    const workerTimes = { free: [] as number[], capped: [] as number[], cappedShare: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      cap.setCapped(thread, false);
      workerTimes.free.push(await workers.evaluate<number>(session, BUSY));
      cap.setCapped(thread, true);
      const cpuBefore = cpuMs(thread);
      const wall = await workers.evaluate<number>(session, BUSY);
      workerTimes.capped.push(wall);
      workerTimes.cappedShare.push((cpuMs(thread) - cpuBefore) / wall);
    }
    if (!cap.isCapped(thread)) throw new Error('the worker thread left its capped group');
    // The renderer's main thread is the thread whose id is the process id.
    const main: Thread = { pid: thread.pid, tid: thread.pid };
    const idleShare = async () => {
      const before = cpuMs(main);
      const started = performance.now();
      await sleep(1000);
      return (cpuMs(main) - before) / (performance.now() - started);
    };
    const spinning = await idleShare();
    await throttle(1);
    const idleSpinShare = spinning - (await idleShare());
    const page_ = { freeMs: median(pageTimes.free), throttledMs: median(pageTimes.throttled) };
    const worker = { freeMs: median(workerTimes.free), cappedMs: median(workerTimes.capped) };
    return {
      rate: cap.rate,
      cores: cpus().length,
      load: loadavg(),
      page: { ...page_, factor: page_.throttledMs / page_.freeMs, idleSpinShare },
      worker: { ...worker, factor: worker.cappedMs / worker.freeMs, cappedCpuShare: median(workerTimes.cappedShare), capShare: cap.share },
    };
  } finally {
    await page.close();
  }
}

/** One line: what "the device" was while a figure was measured. */
export function describeDevice(model: DeviceModel): string {
  return (
    `${model.rate}× CPU: page by DevTools (busy loop ×${model.page.factor.toFixed(1)}), worker capped to ${Math.round(model.worker.capShare * 100)}% of a core (×${model.worker.factor.toFixed(1)}, ` +
    `${Math.round(model.worker.cappedCpuShare * 100)}% of a core while busy); ${model.cores} cores; load ${model.load.map((l) => l.toFixed(1)).join(' ')}`
  );
}
