/**
 * The durable Node store (`createMemory({ directory })`) beside the in-memory
 * fake-indexeddb it journals: insert throughput (bulk: addMany of 1,000; one
 * at a time: facts.add), cold start (createMemory → first answer, after a
 * clean close; the durable store's in a fresh process, bench/durable-cold-child.mjs,
 * with process start → first answer beside it) at 10k and 100k, and disk bytes per memory (after close: the
 * compacted image; before close: the journal alone). Facts bring their
 * 128-d vectors (as bench/random-vectors.ts), so storage is measured, not
 * the embedder. Medians of 3 runs; the machine's load is printed with them.
 *
 *   npm run bench:durable                  (also part of npm run bench)
 *   BENCH_DURABLE_SIZES=10000 BENCH_DURABLE_RUNS=1 npm run bench:durable
 */
import { execFileSync, execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, type Memory, type MemoryOptions } from '../src/index.node.js';
import { dataset } from './browser/page/dataset.js';
import { insertFacts, memoryOptions, recallIds, VECTOR_ONLY } from './browser/peers/engram-calls.js';
import { median, printTable } from './support.js';

const DIM = 128;
const COLD_CHILD = fileURLToPath(new URL('./durable-cold-child.mjs', import.meta.url));


const RUNS = Number(process.env.BENCH_DURABLE_RUNS ?? 3);
const ONE_AT_A_TIME = 300;
const SIZES = (process.env.BENCH_DURABLE_SIZES ?? '10000,100000').split(',').map(Number);

type Backend = { label: string; fresh: () => { options: Partial<MemoryOptions>; folder?: string; dispose: () => void } };

const BACKENDS: Backend[] = [
  {
    label: 'fake-indexeddb (memory)',
    fresh: () => ({ options: { indexedDB: new IDBFactory(), IDBKeyRange }, dispose: () => undefined }),
  },
  {
    label: 'durable (disk)',
    fresh: () => {
      const directory = mkdtempSync(join(tmpdir(), 'engram-bench-'));
      return { options: { directory }, folder: directory, dispose: () => rmSync(directory, { recursive: true, force: true }) };
    },
  },
];

const open = (options: Partial<MemoryOptions>, size: number): Promise<Memory> =>
  createMemory({ ...memoryOptions(DIM, size, VECTOR_ONLY), ...options } as MemoryOptions);

function bytesUnder(folder: string | undefined): number {
  if (!folder) return NaN;
  let total = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

async function oneAtATime(backend: Backend): Promise<number> {
  const data = dataset(ONE_AT_A_TIME, DIM, 1);
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const store = backend.fresh();
    const memory = await open(store.options, ONE_AT_A_TIME);
    const started = performance.now();
    for (let i = 0; i < ONE_AT_A_TIME; i++) await memory.facts.add({ id: `m${i}`, text: data.texts[i]!, embedding: data.vectors[i]! });
    runs.push(ONE_AT_A_TIME / ((performance.now() - started) / 1000));
    await memory.close();
    store.dispose();
  }
  return median(runs);
}

async function atSize(backend: Backend, size: number): Promise<(string | number)[]> {
  const data = dataset(size, DIM, 1);
  const inserts: number[] = [];
  const colds: number[] = [];
  const fromStarts: number[] = [];
  let journalBytes = NaN;
  let imageBytes = NaN;
  for (let run = 0; run < RUNS; run++) {
    const store = backend.fresh();
    const memory = await open(store.options, size);
    const started = performance.now();
    await insertFacts(memory, data);
    inserts.push(size / ((performance.now() - started) / 1000));
    journalBytes = bytesUnder(store.folder);
    // A generous close deadline: at 100k the first index snapshot save takes seconds, and a cold start without it measures something else.
    await memory.close({ timeoutMs: 300_000 });
    imageBytes = bytesUnder(store.folder);
    let cold: { coldMs: number; fromProcessStartMs: number; indexed: number; openedFrom: string; hits: number };
    if (store.folder) {
      // A fresh process, as an agent that restarts meets it: plain Node, the built package (`npm run build`, which
      // the script runs first), a clean heap (in the writing process the open also paid for collecting what the insert left).
      const query = JSON.stringify({ text: data.queries[0]!.text, vector: [...data.queries[0]!.vector] });
      const out = execFileSync(process.execPath, [COLD_CHILD, store.folder, String(size), query], { encoding: 'utf8' });
      cold = JSON.parse(out.trim().split('\n').pop()!);
    } else {
      // The in-memory store lives only in this process: reopened here.
      const started = performance.now();
      const reopened = await open(store.options, size);
      const hits = (await recallIds(reopened, data.queries[0]!, 10)).length;
      const coldMs = performance.now() - started;
      const info = await reopened.info();
      await reopened.close();
      cold = { coldMs, fromProcessStartMs: NaN, indexed: info.indexed, openedFrom: info.openedFrom, hits };
    }
    colds.push(cold.coldMs);
    fromStarts.push(cold.fromProcessStartMs);
    if (cold.indexed !== size || cold.hits !== 10) throw new Error(`bench: the reopened ${backend.label} store holds ${cold.indexed} memories`);
    if (cold.openedFrom !== 'snapshot') throw new Error(`bench: the reopened ${backend.label} store came from the ${cold.openedFrom}`);
    store.dispose();
  }
  return [backend.label, size, median(inserts), median(colds), median(fromStarts), journalBytes / size, imageBytes / size];
}

export const DURABLE_TITLE = `Durable Node store vs in-memory fake-indexeddb (${DIM}-d given vectors; medians of ${RUNS}; bulk = addMany of 1,000; cold start = createMemory → first answer after a clean close, the durable store's in a fresh process)`;
export const DURABLE_HEADER = ['store', 'memories', 'bulk insert/s', 'cold start ms', 'process start → answer ms', 'disk B/memory (journal, before close)', 'disk B/memory (files, after close)'];

export async function durableRows(): Promise<{ rows: (string | number)[][]; single: (string | number)[][] }> {
  const rows: (string | number)[][] = [];
  const single: (string | number)[][] = [];
  for (const backend of BACKENDS) {
    single.push([backend.label, await oneAtATime(backend)]);
    for (const size of SIZES) rows.push(await atSize(backend, size));
  }
  return { rows, single };
}

function load(): string {
  try {
    return execSync('uptime').toString().trim();
  } catch {
    return 'uptime unavailable';
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`engram durable store benchmark — ${new Date().toISOString()} — node ${process.version}\nload before: ${load()}`);
  const { rows, single } = await durableRows();
  printTable(`One at a time (facts.add with its vector, ${ONE_AT_A_TIME} per run, medians of ${RUNS})`, ['store', 'inserts/s'], single);
  printTable(DURABLE_TITLE, DURABLE_HEADER, rows);
  console.log(`load after: ${load()}`);
}
