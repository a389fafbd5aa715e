/**
 * The browser benchmark: engram against the libraries people would pick
 * instead, in one Chromium session, on the same data and the same vectors.
 * Prints one table and writes it to bench/results/browser-<date>.md (+ .json).
 * Run by hand (not part of the test suite):
 *
 *   npm run bench:browser
 *   BENCH_SIZES=1000,10000 BENCH_DIMS=128 BENCH_SYSTEMS=engram,brute-force npm run bench:browser
 *
 * Environment: BENCH_SIZES (1000,10000,100000), BENCH_DIMS (128,384),
 * BENCH_SYSTEMS (engram,orama,entity-db,hnswlib,voy,brute-force,wasm-floor),
 * BENCH_QUERIES (200), BENCH_QUERY_BUDGET_S (15: per query phase, at least
 * 20 queries), BENCH_INSERT_BUDGET_S (120: a system whose insert would take
 * longer at the next size, extrapolated from the last one, is skipped there
 * with the reason printed), BENCH_LABEL (appended to the results file name,
 * browser-<date>-<label>.md, so a run does not overwrite an earlier one of
 * the same day), BENCH_RAW_IDB_ROWS (20000: rows per run of the raw IndexedDB
 * baseline of the durable insert, measured after the systems; 0 skips it),
 * CHROMIUM_PATH (/usr/bin/chromium).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { BenchConfig, ColdResult, WarmResult } from './page/main.js';
import { measureLayout } from './idb-rows.js';
import { renderReport, type RawIdbRates, type RunRecord } from './report.js';
import { startBenchServer } from './server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';

const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(',').map((s) => s.trim()).filter(Boolean);
const SIZES = list(process.env.BENCH_SIZES, '1000,10000,100000').map(Number);
const DIMS = list(process.env.BENCH_DIMS, '128,384').map(Number);
const SYSTEMS = list(process.env.BENCH_SYSTEMS, 'engram,orama,entity-db,hnswlib,voy,brute-force,wasm-floor');
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const QUERY_BUDGET_MS = Number(process.env.BENCH_QUERY_BUDGET_S ?? 15) * 1000;
const INSERT_BUDGET_MS = Number(process.env.BENCH_INSERT_BUDGET_S ?? 120) * 1000;
const MIN_QUERIES = 20;
/** Rows per run of the raw IndexedDB baseline (bench/browser/idb-rows.ts), and runs (median). */
const RAW_IDB_ROWS = Number(process.env.BENCH_RAW_IDB_ROWS ?? 20_000);
const RAW_IDB_RUNS = 3;

const log = (message: string) => process.stderr.write(`[bench:browser ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

declare const bench: {
  prepare(config: { dimension: number; size: number; queries: number }): Promise<number[][]>;
  warm(config: BenchConfig): Promise<WarmResult>;
  cleanup(): Promise<void>;
};

async function launch(): Promise<{ context: BrowserContext; userDataDir: string }> {
  // A persistent profile: IndexedDB on disk, as in a real browser (an incognito context keeps it in memory).
  const userDataDir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      // measureUserAgentSpecificMemory otherwise waits for the next natural GC (up to ~20 s).
      '--enable-blink-features=ForceEagerMeasureMemory',
      '--js-flags=--max-old-space-size=4096',
    ],
  });
  return { context, userDataDir };
}

async function freshPage(context: BrowserContext, url: string, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('request', (request) => {
    const host = new URL(request.url()).hostname;
    if (request.url().startsWith('http') && host !== '127.0.0.1') errors.push(`non-loopback request: ${request.url()}`);
  });
  await page.goto(url);
  return page;
}

async function runOne(context: BrowserContext, url: string, config: BenchConfig): Promise<{ warm: WarmResult; cold: ColdResult; errors: string[] }> {
  const errors: string[] = [];
  const page = await freshPage(context, url, errors);
  try {
    const warm = await page.evaluate((c) => bench.warm(c), config);
    // The reload: a new document on the same origin reopens what the system persisted.
    await page.goto(`${url}?cold=${config.system}&dimension=${config.dimension}&size=${config.size}`);
    const handle = await page.waitForFunction(() => (globalThis as { coldResult?: unknown }).coldResult, null, { timeout: 600_000, polling: 200 });
    const cold = (await handle.jsonValue()) as ColdResult & { error?: string };
    if (cold.error) throw new Error(`cold start: ${cold.error}`);
    await page.evaluate(() => bench.cleanup());
    return { warm, cold, errors };
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const server = await startBenchServer();
  const { context, userDataDir } = await launch();
  const chromiumVersion = context.browser()?.version() ?? 'unknown';
  log(`Chromium ${chromiumVersion}, ${availableParallelism()} cores; sizes ${SIZES.join(', ')}; dimensions ${DIMS.join(', ')}; systems ${SYSTEMS.join(', ')}`);
  const records: RunRecord[] = [];
  const rawIdb: RawIdbRates = {};
  try {
    for (const dimension of DIMS) {
      // Per system: the last measured insert, to extrapolate to the next size.
      const lastInsert = new Map<string, { size: number; ms: number }>();
      for (const size of SIZES) {
        log(`${size.toLocaleString('en-US')} × ${dimension}-d: building the data set and the exact top-10 of ${QUERIES} queries`);
        const errors: string[] = [];
        const page = await freshPage(context, server.url, errors);
        const truth = await page.evaluate((c) => bench.prepare(c), { dimension, size, queries: QUERIES });
        await page.close();
        for (const system of SYSTEMS) {
          const previous = lastInsert.get(system);
          const estimateMs = previous ? (previous.ms * size) / previous.size : 0;
          if (estimateMs > INSERT_BUDGET_MS) {
            const reason = `insert would take ~${Math.round(estimateMs / 1000)} s (${Math.round(previous!.ms / 1000)} s at ${previous!.size.toLocaleString('en-US')}), over the ${INSERT_BUDGET_MS / 1000} s budget (BENCH_INSERT_BUDGET_S)`;
            log(`  ${system}: skipped: ${reason}`);
            records.push({ dimension, size, system, skipped: reason });
            continue;
          }
          log(`  ${system}: insert, ${QUERIES} queries, reload, cold start`);
          const t0 = Date.now();
          try {
            const config: BenchConfig = { system, dimension, size, queries: QUERIES, queryBudgetMs: QUERY_BUDGET_MS, minQueries: MIN_QUERIES, truth };
            const { warm, cold, errors: pageErrors } = await runOne(context, server.url, config);
            lastInsert.set(system, { size, ms: warm.insert.durableMs });
            records.push({ dimension, size, system, warm, cold, errors: pageErrors });
            log(
              `  ${system}: done in ${Math.round((Date.now() - t0) / 1000)} s (insert ${Math.round(warm.insert.durableMs)} ms, p95 ${warm.vector.latency.p95.toFixed(2)} ms, recall ${warm.vector.recall?.toFixed(3)}, cold ${Math.round(cold.firstAnswerMs)} ms)` +
                (pageErrors.length ? `; page errors: ${pageErrors.slice(0, 3).join(' | ')}` : ''),
            );
          } catch (error) {
            const reason = `failed: ${(error as Error).message.split('\n')[0]}`;
            log(`  ${system}: ${reason}`);
            records.push({ dimension, size, system, skipped: reason });
            // A crash at this size says nothing good about the next one.
            lastInsert.set(system, { size, ms: Number.POSITIVE_INFINITY });
          }
        }
      }
    }
    // The durable insert's baseline, same browser, same sitting: engram's own row layout written by plain
    // IndexedDB code (what any store that keeps a row per memory pays), and the per-request floor.
    if (SYSTEMS.includes('engram') && RAW_IDB_ROWS > 0) {
      for (const dimension of DIMS) {
        log(`raw IndexedDB baseline at ${dimension}-d: ${RAW_IDB_ROWS.toLocaleString('en-US')} rows per run, median of ${RAW_IDB_RUNS}`);
        rawIdb[dimension] = {
          engramLayout: await measureLayout(context, 'engram', dimension, RAW_IDB_ROWS, RAW_IDB_RUNS),
          tinyRows: await measureLayout(context, 'tinyRows', dimension, RAW_IDB_ROWS, RAW_IDB_RUNS),
        };
      }
    }
  } finally {
    await context.close();
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }

  const meta = {
    date: new Date().toISOString(),
    chromium: chromiumVersion,
    cores: availableParallelism(),
    node: process.version,
    queries: QUERIES,
    sizes: SIZES,
    dimensions: DIMS,
    systems: SYSTEMS,
    minutes: (Date.now() - started) / 60_000,
    rawIdb: { rows: RAW_IDB_ROWS, runs: RAW_IDB_RUNS, rates: rawIdb },
  };
  const markdown = renderReport(meta, records);
  process.stdout.write(markdown);
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const label = process.env.BENCH_LABEL?.replace(/[^\w.-]+/g, '-');
  const base = `browser-${meta.date.slice(0, 10)}${label ? `-${label}` : ''}`;
  writeFileSync(join(dir, `${base}.md`), markdown);
  writeFileSync(join(dir, `${base}.json`), JSON.stringify({ meta, records }, null, 2));
  log(`wrote bench/results/${base}.md and .json (${meta.minutes.toFixed(1)} min)`);
}

await main();
