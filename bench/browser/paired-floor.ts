/**
 * The vector-query target of issue 16 measured in turns: engram (through its
 * public API, in its Web Worker) against the WebAssembly SIMD floor (one f32
 * matrix scanned on the page, bench/floor/f32-floor.ts), in one page, on the
 * same random unit vectors and the same queries, in blocks of BENCH_BLOCK
 * queries taking turns (which system goes first alternates). In
 * `npm run bench:browser` each system is timed in a phase of its own, half a
 * minute apart, and this machine's load moves both by more than the margin
 * the target leaves; in turns, both meet the same load. Both are reopened as
 * the next page load finds them (engram from its index snapshot, the floor
 * from its IndexedDB value), both answer 5 warm-up queries untimed, and
 * every answer is checked against the other's (both are exact).
 * The target: engram's p95 ≤ 1.5 × the floor's p95 + one worker round trip
 * (engram's smallest call, median of 50). BENCH_RUNS fresh pages (3), each
 * with its verdict, and the medians; load average printed.
 *
 *   npm run bench:paired
 *   BENCH_DIMS=384 BENCH_RUNS=5 npm run bench:paired
 *
 * Environment: BENCH_SIZE (100000), BENCH_DIMS (128), BENCH_QUERIES (400),
 * BENCH_BLOCK (10), BENCH_RUNS (3), CHROMIUM_PATH.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startBenchServer } from './server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { median, printTable } from '../support.js';

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const DIMS = (process.env.BENCH_DIMS ?? '128').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 400);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Latency {
  p50: number;
  p95: number;
  n: number;
}
declare const bench: {
  paired(config: { dimension: number; size: number; queries: number; block: number }): Promise<{ engram: Latency; floor: Latency; roundTripMs: number; disagreements: number }>;
};

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const ms = (value: number) => value.toFixed(2);

console.log(`load average at start: ${load()}`);
const server = await startBenchServer();
// A persistent profile: IndexedDB on disk, as in a real browser and in bench:browser.
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-paired-'));
const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=4096'] });
const rows: (string | number)[][] = [];
try {
  for (const dimension of DIMS) {
    const ratios: number[] = [];
    let met = 0;
    for (let run = 1; run <= RUNS; run++) {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(server.url);
      const result = await page.evaluate((config) => bench.paired(config), { dimension, size: SIZE, queries: QUERIES, block: BLOCK });
      await page.close();
      if (errors.length > 0) throw new Error(`page errors: ${errors.join(' | ')}`);
      if (result.disagreements > 0) throw new Error(`engram and the floor disagreed on ${result.disagreements} of ${result.engram.n} queries`);
      const allowed = 1.5 * result.floor.p95 + result.roundTripMs;
      const ratio = result.engram.p95 / result.floor.p95;
      ratios.push(ratio);
      if (result.engram.p95 <= allowed) met++;
      rows.push([
        `${dimension}`,
        run,
        `${ms(result.engram.p50)} / ${ms(result.engram.p95)}`,
        `${ms(result.floor.p50)} / ${ms(result.floor.p95)}`,
        ms(result.roundTripMs),
        `${ms(result.engram.p95)} ≤ ${ms(allowed)}? ${result.engram.p95 <= allowed ? 'met' : 'missed'}`,
        `${ratio.toFixed(2)}x`,
        load(),
      ]);
    }
    console.log(`${SIZE.toLocaleString('en-US')} × ${dimension}-d: engram's p95 ${median(ratios).toFixed(2)}× the floor's in the median of ${RUNS} runs; the target met in ${met} of ${RUNS}`);
  }
} finally {
  await context.close();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
printTable(
  `engram against the WebAssembly SIMD floor in turns of ${BLOCK} queries (${QUERIES} timed each, top-10, ${SIZE.toLocaleString('en-US')} random unit vectors, both exact and agreeing on every answer)`,
  ['dims', 'run', 'engram p50 / p95 ms', 'floor p50 / p95 ms', 'round trip ms', 'p95 ≤ 1.5 × floor p95 + round trip', 'engram p95 ÷ floor p95', 'load after'],
  rows,
);
console.log(`load average at end: ${load()}`);
