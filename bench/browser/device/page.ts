/**
 * The device benchmark's page (bench/browser/device.ts drives it). Its URL
 * says what this page load is:
 * - `?role=engram&name=..&q=..` opens engram (`createMemory({ name })`: the
 *   bundled 128-d model, the default ranking) as soon as the script runs and
 *   answers `q`; `?role=floor&name=..&q=..` does the same with the complete
 *   floor (./complete-floor.ts) in its worker. Either way `window.deviceStart`
 *   says when the open was ready and when the first answer came, in ms since
 *   the navigation started, and `window.device` then drives the open system.
 *   `&worker=<url>` starts engram's engine from that worker script (the
 *   harness's unminified build, for a readable CPU profile).
 * - `?role=build` exposes `device.build()`: both stores written from the same
 *   texts, before anything is measured.
 * - `?role=idle` starts a worker that does nothing, for the throttling check.
 */
import * as Comlink from 'comlink';
import { createMemory, DEFAULT_USER_ID } from 'engram';
import { measureMemory, phase } from '../page/metrics.js';
import { syntheticTexts } from '../../synthetic.js';
import type { FloorWorkerApi } from './floor-worker.js';

interface DeviceSystem {
  recall(text: string, touch: boolean): Promise<unknown>;
  /** observe() without an LLM: the exchange stored as two turns. */
  observe(user: string, assistant: string): Promise<unknown>;
  add(text: string): Promise<unknown>;
  info(): Promise<{ indexed: number; vectorBytes: number; replayed: number; openedFrom: string }>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** A worker start on a throttled device under load can take far longer than the default 30 s: the benchmark measures it, not refuses it. */
const WORKER_START_TIMEOUT_MS = 600_000;
/** Texts per addMany call while building (as bench/browser/real-cold-start.ts). */
const BUILD_BATCH = 1000;
const params = new URLSearchParams(location.search);
const phases: Record<string, number> = {};
const onProgress = (p: { phase: string; progress?: number }) => {
  if (p.progress === 0) phases[`${p.phase} start`] ??= performance.now();
  if (p.progress === 1) phases[`${p.phase} ready`] = performance.now();
};

async function openEngram(name: string, workerUrl: string | null): Promise<DeviceSystem> {
  const memory = await createMemory({ name, onProgress, workerStartTimeoutMs: WORKER_START_TIMEOUT_MS, ...(workerUrl ? { worker: workerUrl } : {}) });
  return {
    recall: (text, touch) => memory.recall(text, touch ? {} : { touch: false }),
    observe: (user, assistant) => memory.observe({ userId: DEFAULT_USER_ID, sessionId: 'device-bench', user, assistant }),
    add: (text) => memory.facts.add({ text }),
    info: async () => {
      const { indexed, vectorBytes, replayed, openedFrom } = await memory.info();
      return { indexed, vectorBytes, replayed, openedFrom };
    },
    idle: () => memory.idle(),
    close: () => memory.close(),
  };
}

function floorWorker(): Comlink.Remote<FloorWorkerApi> {
  return Comlink.wrap<FloorWorkerApi>(new Worker(new URL('./floor-worker.ts', import.meta.url), { type: 'module' }));
}

async function openFloor(name: string): Promise<DeviceSystem> {
  const floor = floorWorker();
  await floor.open(name);
  return {
    recall: (text) => floor.recall(text),
    observe: (user, assistant) => floor.write([user, assistant]),
    add: (text) => floor.write([text]),
    info: async () => ({ ...(await floor.info()), openedFrom: 'saved matrix' }),
    idle: async () => undefined,
    close: () => floor.close(),
  };
}

/** Timed calls, one after the other; each latency in ms and its span in epoch ms (to line it up with the harness's clock). */
async function timed(count: number, call: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; spans: [number, number][] }> {
  const latencies: number[] = [];
  const spans: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call(i);
    const ended = performance.now();
    latencies.push(ended - started);
    spans.push([performance.timeOrigin + started, performance.timeOrigin + ended]);
  }
  return { latencies, spans };
}

function drive(system: DeviceSystem) {
  return {
    recalls: (questions: string[], touch = true) => timed(questions.length, (i) => system.recall(questions[i]!, touch)),
    observes: (texts: string[]) => timed(texts.length / 2, (i) => system.observe(texts[2 * i]!, texts[2 * i + 1]!)),
    adds: (texts: string[]) => timed(texts.length, (i) => system.add(texts[i]!)),
    info: () => system.info(),
    idle: () => system.idle(),
    /** Main-thread tasks over 50 ms since `from` (ms since the navigation started; bench/browser/page/metrics.ts). */
    longTasks: async (from = 0) => (await phase(async () => undefined, from)).longTasks,
    /** The page's and its worker's memory (bench/browser/page/metrics.ts), or nothing if the API does not answer in time. */
    memory: () => Promise.race([measureMemory(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000))]),
    async close() {
      const started = performance.now();
      await system.close();
      return performance.now() - started;
    },
    /** close() started and not awaited: the harness kills the tab while it runs. */
    startClose() {
      void system.close();
      return performance.now();
    },
  };
}

async function start(role: string): Promise<void> {
  const name = params.get('name')!;
  const system = role === 'engram' ? await openEngram(name, params.get('worker')) : await openFloor(name);
  const ready = performance.now(); // since this navigation started
  await system.recall(params.get('q')!, true);
  const first = performance.now();
  Object.assign(globalThis, { device: drive(system), deviceStart: { done: true, ready, first, phases } });
}

const build = {
  /** Both stores from the same texts (bench/browser/page/dataset.ts's: seed 11), engram's embedded by its worker. */
  async build(config: { size: number; engram: string; floor: string }) {
    const texts = syntheticTexts(config.size, 11);
    let started = performance.now();
    const memory = await createMemory({ name: config.engram, workerStartTimeoutMs: WORKER_START_TIMEOUT_MS });
    for (let at = 0; at < texts.length; at += BUILD_BATCH) {
      await memory.facts.addMany(texts.slice(at, at + BUILD_BATCH).map((text) => ({ text })), { merge: false, returnRecords: false });
    }
    const { indexed } = await memory.info();
    await memory.close();
    const engramMs = performance.now() - started;
    started = performance.now();
    await floorWorker().build(config.floor, config.size);
    return { indexed, engramMs, floorMs: performance.now() - started };
  },
};

const role = params.get('role');
if (role === 'engram' || role === 'floor') {
  start(role).catch((error: Error) => Object.assign(globalThis, { deviceStart: { done: true, error: `${error.name}: ${error.message}` } }));
} else if (role === 'build') {
  Object.assign(globalThis, { device: build });
} else if (role === 'idle') {
  new Worker(new URL('./idle-worker.ts', import.meta.url), { type: 'module' });
}
