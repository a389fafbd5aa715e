/**
 * What engram's worker holds in memory at 100k memories, counted whole:
 * the WebAssembly memory its vectors live in (`info().vectorBytes`, the sizes
 * of its WebAssembly.Memory objects, which neither
 * `measureUserAgentSpecificMemory` nor the DevTools heap figures count) plus
 * the worker's JS heap and its ArrayBuffers (the DevTools protocol's
 * Runtime.getHeapUsage on the worker target: usedSize + backingStorageSize),
 * against the raw f32 vectors (n × d × 4 bytes) and the floor (one
 * WebAssembly SIMD f32 matrix of the same vectors). engram has answered 20
 * queries with its default ranking, right after the inserts and after a
 * close and reopen (as the next page load finds it: opened from the index
 * snapshot), and vector-only after the inserts. Medians of BENCH_RUNS (3)
 * fresh pages.
 *
 *   npm run bench:footprint                       100k × 384 and 100k × 128
 *   BENCH_SIZES=10000 BENCH_DIMS=384 npm run bench:footprint
 */
import { loadavg } from 'node:os';
import { chromium, type CDPSession } from 'playwright-core';
import { startBenchServer } from './server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { printTable } from '../support.js';

const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(',').map(Number);
const SIZES = list(process.env.BENCH_SIZES, '100000');
const DIMS = list(process.env.BENCH_DIMS, '384,128');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

declare const bench: {
  footprint(config: { dimension: number; size: number; ranking: string; reopened: boolean }): Promise<{ indexed: number; vectorBytes: number; workerHeap: { source: string; workerBytes: number }; floorBytes: number }>;
  footprintClose(): Promise<void>;
};

/** Sends CDP commands to the page's workers (non-flattened sessions: Playwright exposes no worker CDP session). */
async function workerHeaps(cdp: CDPSession, sessions: string[]): Promise<{ usedSize: number; backingStorageSize: number }[]> {
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  const listener = (event: { message: string }) => {
    const message = JSON.parse(event.message) as { id: number; result?: unknown; error?: unknown };
    pending.get(message.id)?.(message.result ?? message.error);
  };
  cdp.on('Target.receivedMessageFromTarget', listener);
  try {
    const heaps = [];
    for (const sessionId of sessions) {
      const messageId = ++id;
      const result = new Promise((resolve) => pending.set(messageId, resolve));
      // Full collections first (the worker's V8 has --expose-gc), so only what is held counts; ArrayBuffers are
      // swept on a background thread after a collection, so collect again after a pause before reading.
      for (let round = 0; round < 3; round++) {
        await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: ++id, method: 'Runtime.evaluate', params: { expression: 'gc()' } }) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: messageId, method: 'Runtime.getHeapUsage' }) });
      heaps.push((await result) as { usedSize: number; backingStorageSize: number });
    }
    return heaps;
  } finally {
    cdp.off('Target.receivedMessageFromTarget', listener);
  }
}

const MB = (bytes: number) => (bytes / 1e6).toFixed(1);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const server = await startBenchServer();
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=4096 --expose-gc', '--enable-blink-features=ForceEagerMeasureMemory'] });
const rows: (string | number)[][] = [];
const loads: string[] = [];
try {
  for (const size of SIZES) {
    const cases = DIMS.flatMap((d) => [
      [d, 'default', false],
      [d, 'default', true],
      [d, 'vector-only', false],
    ] as const);
    for (const [dimension, ranking, reopened] of cases) {
      const runs: { wasm: number; heap: number; buffers: number; floor: number }[] = [];
      for (let run = 0; run < RUNS; run++) {
        const page = await browser.newPage();
        const cdp = await page.context().newCDPSession(page);
        const sessions: string[] = [];
        cdp.on('Target.attachedToTarget', (event) => {
          if (event.targetInfo.type === 'worker') sessions.push(event.sessionId);
        });
        // A closed memory's worker is gone: its session no longer answers.
        cdp.on('Target.detachedFromTarget', (event) => {
          if (event.sessionId && sessions.includes(event.sessionId)) sessions.splice(sessions.indexOf(event.sessionId), 1);
        });
        await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
        await page.goto(server.url);
        const result = await page.evaluate((config) => bench.footprint(config), { dimension, size, ranking, reopened });
        if (result.indexed !== size) throw new Error(`engram indexed ${result.indexed} of ${size}`);
        const heaps = await workerHeaps(cdp, sessions);
        if (heaps.length !== 1) throw new Error(`expected engram's one running worker, found ${heaps.length}`);
        const heap = heaps[0]!;
        runs.push({ wasm: result.vectorBytes, heap: heap.usedSize, buffers: heap.backingStorageSize, floor: result.floorBytes });
        await page.evaluate(() => bench.footprintClose());
        await page.close();
        loads.push(loadavg()[0]!.toFixed(2));
      }
      const raw = size * dimension * 4;
      const wasm = median(runs.map((r) => r.wasm));
      const heap = median(runs.map((r) => r.heap));
      const buffers = median(runs.map((r) => r.buffers));
      const total = median(runs.map((r) => r.wasm + r.heap + r.buffers));
      const floor = median(runs.map((r) => r.floor));
      rows.push([size, dimension, `${ranking}${reopened ? ', reopened' : ''}`, MB(raw), `${MB(floor)} (${(floor / raw).toFixed(2)}x)`, `${MB(wasm)} (${(wasm / raw).toFixed(2)}x)`, MB(heap), MB(buffers), `${MB(total)} (${(total / raw).toFixed(2)}x)`]);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
printTable(
  `Worker memory at rest after 20 queries (Chromium ${browser.version()}, medians of ${RUNS} pages; load average ${loads.join(', ')})`,
  ['memories', 'dims', 'engram ranking', 'raw f32 MB', 'floor: one wasm f32 matrix MB', 'engram vectors (WebAssembly) MB', 'engram JS heap MB', 'engram ArrayBuffers MB', 'engram total MB (× raw)'],
  rows,
);
