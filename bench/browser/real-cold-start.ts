/**
 * What a user waits for (issue 16), in Chromium with the offline model and
 * the default ranking, nothing handed in: 100k facts written as text (the
 * worker embeds them), then several "tab killed" reloads. Each reload times
 * navigation → `createMemory()` resolved (worker started, model ready, index
 * opened from its snapshot plus the write log) → first `recall(text)`
 * answered (embedding the query, hybrid ranking, records read), then
 * BENCH_QUERIES back-to-back `recall(text)` calls with the default access-time
 * writes (new questions in every reload and session), then writes 100 facts
 * one by one and closes the tab without `close()`: the next reload opens a
 * snapshot that missed them. The first reload follows a clean `close()`.
 * Then three sessions of as many recalls end with a timed `close()` (their
 * recalls are timed too). Medians over the killed reloads, load average
 * printed.
 *
 *   npm run bench:real-cold
 *   BENCH_DIMENSION=384 npm run bench:real-cold
 *   BENCH_SIZE=10000 BENCH_RELOADS=3 npm run bench:real-cold
 *
 * Environment: BENCH_SIZE (100000), BENCH_RELOADS (4), BENCH_QUERIES (100),
 * BENCH_TOUCH (1; 0 recalls with `touch: false`, no access-time writes),
 * BENCH_DIMENSION (128: the offline model; a multiple of 128: that model
 * widened, bench/widened-model.ts, as no wider model is on this machine),
 * CHROMIUM_PATH.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { startDemoServer } from '../../demo/server.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { syntheticTexts } from '../synthetic.js';
import { writeWidenedModel } from '../widened-model.js';

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 4);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100);
const TOUCH = process.env.BENCH_TOUCH !== '0';
const DIMENSION = Number(process.env.BENCH_DIMENSION ?? 128);
const KILLED_WRITES = 100;
/** Sessions of recalls ended by a timed close(), after the reloads. */
const CLOSED_SESSIONS = 3;
/** The offline model (../shared/models), 128 wide. */
const OFFLINE_MODELS = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
const OFFLINE_MODEL = 'minishlab/potion-base-4M-int8';
const OFFLINE_DIMENSION = 128;
const NAME = 'real-cold-start';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** What the bare test page (test/browser/bare-page) exposes, and where this script keeps its memory. */
interface BarePage {
  engramDemo: { ready?: boolean; open(o: object, embedder: { model: string }): Promise<EngramLike> };
  memory: EngramLike;
}
interface EngramLike {
  facts: { addMany(f: { text: string }[], o: object): Promise<unknown>; add(f: { text: string }): Promise<unknown> };
  recall(q: string, o?: object): Promise<unknown[]>;
  info(): Promise<{ indexed: number; openedFrom: string; replayed: number; embedder: { id: string; dimension: number } }>;
  close(): Promise<void>;
}

/** When each phase of the open started and ended, from its progress events (ms since navigation); a string, so no bundler helper leaks into the page. */
interface ProgressProbe {
  phases: Record<string, number>;
  onProgress(p: { phase: string; progress: number }): void;
}
const PROGRESS_PROBE = `
  window.phases = {};
  window.onProgress = (p) => {
    if (p.progress === 0) window.phases[p.phase + ' start'] ??= performance.now();
    if (p.progress === 1) window.phases[p.phase + ' ready'] = performance.now();
  };`;

async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as BarePage).engramDemo?.ready);
}

if (!Number.isInteger(DIMENSION / OFFLINE_DIMENSION) || DIMENSION < OFFLINE_DIMENSION) throw new Error(`BENCH_DIMENSION must be a multiple of ${OFFLINE_DIMENSION}`);
// A model folder for this run: the offline model, and for a wider BENCH_DIMENSION that model widened beside it.
const modelsDir = mkdtempSync(join(tmpdir(), 'engram-real-cold-models-'));
mkdirSync(join(modelsDir, 'engram-bench'));
symlinkSync(join(OFFLINE_MODELS, 'minishlab'), join(modelsDir, 'minishlab'));
const model =
  DIMENSION === OFFLINE_DIMENSION
    ? OFFLINE_MODEL
    : writeWidenedModel({ sourceDir: OFFLINE_MODELS, model: OFFLINE_MODEL, outDir: modelsDir, name: `engram-bench/potion-base-4M-int8-${DIMENSION}d`, copies: DIMENSION / OFFLINE_DIMENSION });
await build({ configFile: here('../../test/browser/bare-page/vite.config.ts'), logLevel: 'error' });
const server = await startDemoServer({ pageDir: here('../../test/browser/bare-page/dist/'), modelsDir });
const userDataDir = mkdtempSync(join(tmpdir(), 'engram-real-cold-'));
// A persistent profile: IndexedDB and the model's Cache API entries on disk, as in a user's browser.
const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, '--js-flags=--max-old-space-size=4096'] });
try {
  console.log(`load average at start: ${load()}`);
  await context.addInitScript({ content: PROGRESS_PROBE });
  let page = await context.newPage();
  await openPage(page, server.url);
  await page.evaluate(
    async ({ name, model }) => {
      const w = window as unknown as BarePage;
      w.memory = await w.engramDemo.open({ name }, { model });
    },
    { name: NAME, model },
  );
  const texts = syntheticTexts(SIZE, 11);
  const insertStarted = performance.now();
  for (let start = 0; start < SIZE; start += 1000) {
    await page.evaluate((batch) => (window as unknown as BarePage).memory.facts.addMany(batch.map((text) => ({ text })), { merge: false, returnRecords: false }), texts.slice(start, start + 1000));
  }
  const insertMs = performance.now() - insertStarted;
  await page.evaluate(() => (window as unknown as BarePage).memory.close());
  await page.close();
  console.log(`inserted ${SIZE.toLocaleString('en-US')} facts as text (embedded in the worker) in ${(insertMs / 1000).toFixed(1)} s: ${Math.round(SIZE / (insertMs / 1000))}/s; load ${load()}`);

  // Every reload and session asks its own questions: the same ones again would read the same records, which the
  // browser's IndexedDB (LevelDB) keeps cached across reloads (their reads took 0.6-0.9 ms a recall, new ones 1.3-1.8).
  const queriesFor = (round: number) => syntheticTexts(QUERIES + 1, 99 + round).map((t) => `what about ${t.split(' ').slice(0, 3).join(' ')}?`);
  const rows: { killed: boolean; ready: number; first: number; p50: number; p95: number; replayed: number; openedFrom: string }[] = [];
  for (let reload = 0; reload < RELOADS; reload++) {
    const queries = queriesFor(reload);
    page = await context.newPage();
    await openPage(page, server.url);
    const result = await page.evaluate(
      async ({ name, model, queries, writes, touch }) => {
        const w = window as unknown as BarePage;
        const { phases, onProgress } = window as unknown as ProgressProbe;
        phases.script = performance.now();
        w.memory = await w.engramDemo.open({ name, onProgress }, { model });
        const ready = performance.now(); // since this navigation started
        await w.memory.recall(queries[0]!);
        const first = performance.now();
        const { replayed, openedFrom, embedder } = await w.memory.info();
        const latencies: number[] = [];
        for (const query of queries.slice(1)) {
          const started = performance.now();
          await w.memory.recall(query, { touch });
          latencies.push(performance.now() - started);
        }
        for (let i = 0; i < writes; i++) await w.memory.facts.add({ text: `written before the tab was killed, number ${i} of reload ${performance.now()}` });
        return { ready, first, latencies, replayed, openedFrom, phases, dimension: embedder.dimension };
      },
      { name: NAME, model, queries, writes: KILLED_WRITES, touch: TOUCH },
    );
    // The tab dies: no close(), so no snapshot save; the worker goes with the page.
    await page.close({ runBeforeUnload: false });
    const phases = Object.entries(result.phases).sort((a, b) => a[1] - b[1]).map(([phase, at]) => `${phase} ${Math.round(at)}`).join(', ');
    const row = { killed: reload > 0, ready: result.ready, first: result.first, p50: percentile(result.latencies, 50), p95: percentile(result.latencies, 95), replayed: result.replayed, openedFrom: result.openedFrom };
    // The engine embeds at the width this run is about (a widened model that loaded as 128-d would measure nothing new).
    if (result.dimension !== DIMENSION) throw new Error(`the memory embeds ${result.dimension}-d vectors, not ${DIMENSION}-d`);
    rows.push(row);
    console.log(
      `reload ${reload + 1} (${row.killed ? 'after a killed tab' : 'after close()'}; opened from the ${row.openedFrom}, ${row.replayed} replayed): model ready ${Math.round(row.ready)} ms, first recall answered ${Math.round(row.first)} ms from navigation (${phases}); back-to-back recall(text) p50 ${row.p50.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms, ${result.latencies.filter((ms) => ms > 10).length} of ${result.latencies.length} over 10 ms; load ${load()}`,
    );
  }
  // What close() costs after a session of recalls: it writes the access times and saves the snapshot pages they
  // dirtied (their documents; a page's vectors only when they changed).
  // These sessions also time their recalls: each after the first opens after the previous one's clean close(), so
  // they show what "after close()" costs apart from being the first reload after the inserts (reload 1 above).
  const closes: number[] = [];
  for (let session = 0; session < CLOSED_SESSIONS; session++) {
    const queries = queriesFor(RELOADS + session);
    page = await context.newPage();
    await openPage(page, server.url);
    const timed = await page.evaluate(
      async ({ name, model, queries, touch }) => {
        const w = window as unknown as BarePage;
        w.memory = await w.engramDemo.open({ name }, { model });
        await w.memory.recall(queries[0]!);
        const latencies: number[] = [];
        for (const query of queries.slice(1)) {
          const started = performance.now();
          await w.memory.recall(query, { touch });
          latencies.push(performance.now() - started);
        }
        const started = performance.now();
        await w.memory.close();
        return { close: performance.now() - started, latencies };
      },
      { name: NAME, model, queries, touch: TOUCH },
    );
    closes.push(timed.close);
    console.log(
      `session ${closes.length} (after ${closes.length === 1 && RELOADS > 1 ? 'a killed tab' : 'close()'}): back-to-back recall(text) p50 ${percentile(timed.latencies, 50).toFixed(1)} ms, p95 ${percentile(timed.latencies, 95).toFixed(1)} ms, ${timed.latencies.filter((ms) => ms > 10).length} of ${timed.latencies.length} over 10 ms; close() ${Math.round(timed.close)} ms; load ${load()}`,
    );
    await page.close();
  }
  console.log(`close() after ${QUERIES + 1} back-to-back recalls: ${closes.map((ms) => Math.round(ms)).join(', ')} ms (median ${Math.round(median(closes))}); load ${load()}`);

  const killed = rows.filter((r) => r.killed);
  console.log(
    `\n${SIZE.toLocaleString('en-US')} facts, ${DIMENSION === OFFLINE_DIMENSION ? 'offline model (128-d)' : `offline model widened to ${DIMENSION}-d (bench/widened-model.ts)`}, default ranking, tab killed before each reload (medians of ${killed.length}): ` +
      `navigation → model ready ${Math.round(median(killed.map((r) => r.ready)))} ms → first answer ${Math.round(median(killed.map((r) => r.first)))} ms; ` +
      `back-to-back recall(text${TOUCH ? '' : ', { touch: false }'}) p50 ${median(killed.map((r) => r.p50)).toFixed(1)} ms, p95 ${median(killed.map((r) => r.p95)).toFixed(1)} ms (targets: first answer ≤ ${DIMENSION === OFFLINE_DIMENSION ? '1,500' : '2,000'} ms, p95 ≤ 10 ms)`,
  );
  console.log(`load average at end: ${load()}`);
} finally {
  await context.close();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
  rmSync(modelsDir, { recursive: true, force: true });
}
