/**
 * The browser benchmark's engram figures (npm run bench:browser), in Node on
 * fake-indexeddb, so a regression shows without a browser: the same data set
 * (bench/browser/page/dataset.ts: random unit vectors and a text each,
 * deterministic from dimension and size) and the same engram calls
 * (bench/browser/peers/engram-calls.ts), at each BENCH_DIMS × BENCH_SIZES:
 *
 * - insert/s: pre-embedded facts, addMany 1,000 per call with returnRecords:
 *   false, timed until the last call resolved (its transaction committed);
 * - vector p50/p95/p99 and recall@10 of top-10 vector-only recall (denseWeight
 *   1, similarity only), 200 queries after 5 warm-up, against exact brute force;
 * - hybrid p50/p95: the same queries with the default ranking, on a second
 *   open of the database (as the browser adapter does);
 * - cold start: after close() (which saves the index snapshot), createMemory
 *   → first answered vector query; the open must come from the snapshot.
 *
 * Differences from the browser: the engine runs in-process (no page↔worker
 * hop), and fake-indexeddb
 * keeps everything in memory (durable here means committed; nothing reaches a
 * disk) and clones every value in JS. On this machine inserts come out about
 * 7× and queries 3–4× faster than in Chromium, cold starts about the same:
 * compare these figures across commits, not with the browser's. The exact
 * top-10 ground truth is computed in JS before each case and is not timed.
 *
 * A case whose run would exceed BENCH_VECTOR_BUDGET_S (default 300 s),
 * extrapolated linearly from the previous size at the same dimension, is
 * skipped with the reason printed, as bench/browser/run.ts skips peers.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, type Memory, type RankingOptions } from '../src/index.js';
import { dataset, exactTopK, recallAt } from './browser/page/dataset.js';
import { insertFacts, memoryOptions, recallIds, VECTOR_ONLY } from './browser/peers/engram-calls.js';
import { percentile } from './support.js';

const K = 10;
/** As the browser benchmark's default (BENCH_QUERIES) and warm-up. */
const QUERIES = 200;
const WARM_UP = 5;
const BUDGET_MS = Number(process.env.BENCH_VECTOR_BUDGET_S ?? 300) * 1000;

type Query = { vector: Float32Array; text: string };

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function timedQueries(run: (q: Query) => Promise<number[]>, queries: Query[], truth?: number[][]) {
  for (const q of queries.slice(0, WARM_UP)) await run(q);
  const latencies: number[] = [];
  let recallSum = 0;
  for (const [i, q] of queries.entries()) {
    const started = performance.now();
    const found = await run(q);
    latencies.push(performance.now() - started);
    if (truth) recallSum += recallAt(K, found, truth[i]!);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), recall: recallSum / queries.length };
}

type Idb = { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange };

function open(idb: Idb, dimension: number, size: number, ranking?: RankingOptions): Promise<Memory> {
  return createMemory({ ...memoryOptions(dimension, size, ranking), ...idb });
}

/** Insert, vector and hybrid queries; returns the figures and the first query (all the cold start may know). */
async function warm(idb: Idb, dimension: number, size: number) {
  const data = dataset(size, dimension, QUERIES);
  const truth = data.queries.map((q) => exactTopK(data.vectors, q.vector, K));

  // Opening happens before the insert clock starts, as in the browser.
  const memory = await open(idb, dimension, size, VECTOR_ONLY);
  const insertStarted = performance.now();
  await insertFacts(memory, data);
  const insertPerSecond = size / ((performance.now() - insertStarted) / 1000);
  const vector = await timedQueries((q) => recallIds(memory, q, K), data.queries, truth);
  await memory.close();

  const hybridMemory = await open(idb, dimension, size);
  const hybrid = await timedQueries((q) => recallIds(hybridMemory, q, K), data.queries);
  await hybridMemory.close(); // saves the index snapshot
  return { insertPerSecond, vector, hybrid, query: data.queries[0]! };
}

/**
 * A new memory: createMemory → first answer to the first query. Called after warm() returned, so (as after the browser's reload)
 * the data set and the warm memories are garbage, not live heap.
 */
async function cold(idb: Idb, dimension: number, size: number, query: Query): Promise<number> {
  const started = performance.now();
  const reopened = await open(idb, dimension, size, VECTOR_ONLY);
  const answer = await recallIds(reopened, query, K);
  const ms = performance.now() - started;
  const info = await reopened.info();
  await reopened.close();
  if (info.openedFrom !== 'snapshot') throw new Error(`bench: the ${size} × ${dimension}-d reopen came from the ${info.openedFrom}, not the index snapshot`);
  if (info.indexed !== size || answer.length !== K) throw new Error(`bench: the ${size} × ${dimension}-d reopen holds ${info.indexed} memories and answered ${answer.length}`);
  return ms;
}

async function measure(dimension: number, size: number): Promise<(string | number)[]> {
  const idb: Idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  const { insertPerSecond, vector, hybrid, query } = await warm(idb, dimension, size);
  const coldMs = await cold(idb, dimension, size, query);
  return [dimension, size, insertPerSecond, vector.p50, vector.p95, vector.p99, vector.recall.toFixed(3), hybrid.p50, hybrid.p95, coldMs];
}

/**
 * One row per dimension × size, dimensions outer (as the browser benchmark
 * runs them); a skipped case is a row marked "skipped" and a line in `skipped`
 * saying why.
 */
export async function randomVectorRows(dimensions: number[], sizes: number[]): Promise<{ rows: (string | number)[][]; skipped: string[] }> {
  const rows: (string | number)[][] = [];
  const skipped: string[] = [];
  for (const dimension of dimensions) {
    let previous: { size: number; ms: number } | undefined;
    for (const size of sizes) {
      const at = `${size.toLocaleString('en-US')} × ${dimension}-d`;
      const estimateMs = previous ? (previous.ms * size) / previous.size : 0;
      if (estimateMs > BUDGET_MS) {
        const reason = `would take ~${Math.round(estimateMs / 1000)} s (${(previous!.ms / 1000).toFixed(1)} s at ${previous!.size.toLocaleString('en-US')}), over the ${BUDGET_MS / 1000} s budget (BENCH_VECTOR_BUDGET_S)`;
        log(`${at}: skipped: ${reason}`);
        rows.push([dimension, size, 'skipped']);
        skipped.push(`${at} skipped: ${reason}`);
        continue;
      }
      const started = performance.now();
      rows.push(await measure(dimension, size));
      previous = { size, ms: performance.now() - started };
      log(`${at} random vectors: ${(previous.ms / 1000).toFixed(1)} s`);
    }
  }
  return { rows, skipped };
}

export const RANDOM_VECTORS_HEADER = ['dims', 'memories', 'insert/s (durable)', 'vector p50 ms', 'p95 ms', 'p99 ms', 'recall@10', 'hybrid p50 ms', 'p95 ms', 'cold start ms'];
export const RANDOM_VECTORS_TITLE =
  `The browser benchmark's engram figures (bench:browser's data set and calls), in-process on fake-indexeddb: pre-embedded insert (addMany ×1,000, returnRecords: false); ` +
  `top-${K} vector-only recall, ${QUERIES} queries, recall@${K} against exact brute force; hybrid (default ranking); cold start = createMemory → first vector answer, from the index snapshot`;
