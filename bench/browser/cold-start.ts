/**
 * Cold start alone, several times per insert: `npm run bench:browser` times
 * one reload per insert of 100k memories (about a minute each), too few to
 * compare two variants on a shared, noisy machine. This inserts once per
 * width, then reloads the page BENCH_RELOADS times, each time timing
 * navigation → first answered vector query exactly as the full benchmark
 * does (bench/browser/page/main.ts, `?cold=`), and prints each reload and
 * the median, with the machine's load average.
 *
 *   npm run bench:cold
 *   BENCH_SIZE=100000 BENCH_DIMS=384 BENCH_RELOADS=7 BENCH_SYSTEM=engram npm run bench:cold
 *
 * With BENCH_KILLED=n, each reload also writes n facts one by one after its
 * first answer and is then left without close(), as a killed tab: the next
 * reload opens a snapshot that missed them (engram replays its write log;
 * the count grows by n per reload).
 *
 * Environment: BENCH_SIZE (100000), BENCH_DIMS (128,384), BENCH_RELOADS (5),
 * BENCH_SYSTEM (engram; any system of the full benchmark), BENCH_KILLED (0),
 * CHROMIUM_PATH.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BenchConfig, ColdResult } from './page/main.js';
import { startBenchServer } from './server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const DIMS = (process.env.BENCH_DIMS ?? '128,384').split(',').map(Number);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 5);
const SYSTEM = process.env.BENCH_SYSTEM ?? 'engram';
const KILLED = Number(process.env.BENCH_KILLED ?? 0);
/** Queries only to satisfy `warm`; the cold start is what this measures. */
const QUERIES = 20;

declare const bench: {
  prepare(config: { dimension: number; size: number; queries: number }): Promise<number[][]>;
  warm(config: BenchConfig): Promise<unknown>;
  cleanup(): Promise<void>;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const server = await startBenchServer();
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-cold-'));
// A persistent profile, as in the full benchmark: IndexedDB on disk.
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=4096'],
});
try {
  const page = await context.newPage();
  page.on('pageerror', (error) => process.stderr.write(`page error: ${error.message}\n`));
  for (const dimension of DIMS) {
    await page.goto(server.url);
    const truth = await page.evaluate((c) => bench.prepare(c), { dimension, size: SIZE, queries: QUERIES });
    await page.evaluate((c) => bench.warm(c), { system: SYSTEM, dimension, size: SIZE, queries: QUERIES, queryBudgetMs: 1_000, minQueries: QUERIES, truth });
    const firsts: number[] = [];
    const reopens: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      await page.goto(`${server.url}?cold=${SYSTEM}&dimension=${dimension}&size=${SIZE}${KILLED > 0 ? `&killed=${KILLED}` : ''}`);
      const handle = await page.waitForFunction(() => (globalThis as { coldResult?: unknown }).coldResult, null, { timeout: 600_000, polling: 50 });
      const cold = (await handle.jsonValue()) as ColdResult & { error?: string };
      if (cold.error) throw new Error(`cold start: ${cold.error}`);
      // Each killed reload left KILLED more (its writes were acknowledged, so the next open must find them).
      if (cold.count !== SIZE + i * KILLED) throw new Error(`cold start found ${cold.count} of ${SIZE + i * KILLED} memories`);
      firsts.push(cold.firstAnswerMs);
      reopens.push(cold.reopenToAnswerMs);
      process.stderr.write(`  reload ${i + 1}: ${Math.round(cold.firstAnswerMs)} ms (reopen → answer ${Math.round(cold.reopenToAnswerMs)} ms), load ${load()}\n`);
    }
    console.log(
      `${SYSTEM}, ${SIZE.toLocaleString('en-US')} × ${dimension}-d${KILLED > 0 ? `, tab killed after ${KILLED} writes` : ''}: cold start median ${Math.round(median(firsts))} ms ` +
        `(reopen → answer ${Math.round(median(reopens))} ms) over ${RELOADS} reloads [${firsts.map(Math.round).join(', ')}]`,
    );
    await page.evaluate(() => bench.cleanup());
  }
} finally {
  await context.close();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
