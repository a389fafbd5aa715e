/**
 * The benchmark page. The Node harness (bench/browser/run.ts) drives it:
 *
 * - `bench.prepare(config)` builds the data set and returns the exact top-10
 *   of every query (the ground truth for recall);
 * - `bench.warm(config)` inserts into one system, runs the queries, measures
 *   memory and long tasks;
 * - `bench.paired(config)` times engram and the WebAssembly SIMD floor in
 *   turns, on the same queries (bench/browser/paired-floor.ts);
 * - loading the page with `?cold=<system>&dimension=..&size=..` reopens what
 *   that system persisted and times the first answered query from the start
 *   of the navigation (the result lands in `window.coldResult`).
 */
import { dataset, exactTopK, queries, recallAt } from './dataset.js';
import { measureMemory, percentiles, phase, yieldToPage, type MemoryFigure } from './metrics.js';
import { deleteAllDatabases } from './snapshot-store.js';
import type { SystemModule } from '../peers/system.js';
import { F32Floor } from '../../floor/f32-floor.js';

const K = 10;
/** Queries answered before the timed ones, not timed themselves. */
const WARMUP = 5;

/** Each system is a separate chunk: a cold start loads only its own code. */
const SYSTEMS: Record<string, () => Promise<SystemModule>> = {
  engram: async () => (await import('../peers/engram.js')).engram,
  orama: async () => (await import('../peers/orama.js')).orama,
  'entity-db': async () => (await import('../peers/entity-db.js')).entityDb,
  hnswlib: async () => (await import('../peers/hnswlib.js')).hnswlib,
  voy: async () => (await import('../peers/voy.js')).voy,
  'brute-force': async () => (await import('../peers/brute-force.js')).bruteForce,
  'wasm-floor': async () => (await import('../peers/wasm-floor.js')).wasmFloor,
  'complete-floor': async () => (await import('../peers/complete-vector-floor.js')).completeVectorFloor,
};

export interface BenchConfig {
  system: string;
  dimension: number;
  size: number;
  queries: number;
  /** Stop timing queries after this long (slow peers), but never before `minQueries`. */
  queryBudgetMs: number;
  minQueries: number;
  /** From `prepare`: exact top-10 per query. */
  truth: number[][];
}

async function loadSystem(name: string): Promise<SystemModule> {
  const load = SYSTEMS[name];
  if (!load) throw new Error(`unknown system "${name}" (known: ${Object.keys(SYSTEMS).join(', ')})`);
  return load();
}

async function timedQueries(
  run: (q: { vector: Float32Array; text: string }) => Promise<number[]>,
  qs: { vector: Float32Array; text: string }[],
  config: BenchConfig,
  truth?: number[][],
) {
  // Warm-up on the first 5 queries, untimed; the timed ones are the others (a query already answered could be cached).
  for (const q of qs.slice(0, WARMUP)) await run(q);
  const latencies: number[] = [];
  const recalls: number[] = [];
  const started = performance.now();
  for (let i = WARMUP; i < qs.length; i++) {
    if (i - WARMUP >= config.minQueries && performance.now() - started > config.queryBudgetMs) break;
    const t0 = performance.now();
    const found = await run(qs[i]!);
    latencies.push(performance.now() - t0);
    if (truth) recalls.push(recallAt(K, found, truth[i]!));
    if (i % 20 === 19) await yieldToPage();
  }
  return { latency: percentiles(latencies), recall: recalls.length ? recalls.reduce((a, b) => a + b, 0) / recalls.length : null };
}

const bench = {
  async prepare(config: { dimension: number; size: number; queries: number }) {
    await deleteAllDatabases();
    const data = dataset(config.size, config.dimension, config.queries);
    return data.queries.map((q) => exactTopK(data.vectors, q.vector, K));
  },

  async warm(config: BenchConfig) {
    await deleteAllDatabases();
    const module = await loadSystem(config.system);
    const data = dataset(config.size, config.dimension, config.queries);
    const before = await measureMemory();
    const system = await module.create(config.dimension, config.size);

    let searchableMs = 0;
    const insertStarted = performance.now();
    const insert = await phase(() => system.insert(data, () => (searchableMs = performance.now() - insertStarted)), insertStarted);
    const vector = await phase(() => timedQueries((q) => system.queryVector(q, K), data.queries, config, config.truth));
    const hybrid = system.queryHybrid ? await phase(() => timedQueries((q) => system.queryHybrid!(q, K), data.queries, config)) : null;
    const after = await measureMemory();
    const wasmBytes = (await system.wasmBytes?.()) ?? 0;
    const extras = (await system.extras?.()) ?? {};
    await system.close();
    return {
      system: system.name,
      notDurable: system.notDurable ?? null,
      insert: { searchableMs, durableMs: insert.ms, longTasks: insert.longTasks },
      vector: { ...vector.value, longTasks: vector.longTasks },
      hybrid: hybrid ? { ...hybrid.value, longTasks: hybrid.longTasks } : null,
      memory: { before, after, usedBytes: used(before, after), wasmBytes },
      extras,
    };
  },

  /**
   * Footprint (bench/browser/footprint.ts): engram holds `size` facts in its
   * worker and has answered 20 queries, with the default ranking or
   * vector-only, after the inserts or reopened from its snapshot, and stays open
   * for the harness to read the worker's heap over the DevTools protocol;
   * `footprintClose` closes it. The floor holds the same vectors in one
   * WebAssembly SIMD matrix.
   */
  async footprint(config: { dimension: number; size: number; ranking: 'default' | 'vector-only'; reopened: boolean }) {
    await deleteAllDatabases();
    const data = dataset(config.size, config.dimension, 20);
    const { createMemory } = await import('engram');
    const { insertFacts, memoryOptions, recallIds, VECTOR_ONLY } = await import('../peers/engram-calls.js');
    const options = memoryOptions(config.dimension, config.size, config.ranking === 'vector-only' ? VECTOR_ONLY : undefined);
    let memory = await createMemory(options);
    await insertFacts(memory, data);
    if (config.reopened) {
      // As the next page load finds it: closed (the snapshot saved), the worker gone, opened again.
      await memory.close();
      memory = await createMemory(options);
    }
    for (const q of data.queries) await recallIds(memory, q, K);
    const floor = new F32Floor(config.dimension, config.size, 'wasm');
    for (const v of data.vectors) floor.add(v);
    floor.topK(data.queries[0]!.vector, K);
    // At rest: the background work done, and past the snapshot saves that follow the last change by 2 s (after
    // 100k inserts, a save of every page: several seconds of steps in Chromium, then the queries' access times
    // dirty pages again). 4 s measured some runs mid-save, with pages being encoded still held.
    await memory.idle();
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    await memory.idle();
    const info = await memory.info();
    const heap = await measureMemory();
    Object.assign(globalThis, { footprintMemory: memory });
    return { indexed: info.indexed, vectorBytes: info.vectorBytes, workerHeap: heap, floorBytes: floor.bytes };
  },

  async footprintClose() {
    await (globalThis as unknown as { footprintMemory: { close(): Promise<void> } }).footprintMemory.close();
  },

  /**
   * engram against a WebAssembly SIMD floor, timed in turns (bench/browser/paired-floor.ts):
   * `floor` is 'complete-floor' (the scan, then its k records read from IndexedDB: memories, as
   * engram answers) or 'wasm-floor' (the scan alone: ids from page memory). Both hold the same
   * vectors and are reopened as the next page load finds them (engram from
   * its index snapshot after `close()`, the floor from its IndexedDB values), answer 5 warm-up
   * queries each, untimed, then the same queries in blocks of `block`, taking turns (which
   * goes first alternates), so both are timed under the same load. Each answer is checked
   * against the other's (both are exact).
   */
  async paired(config: { dimension: number; size: number; queries: number; block: number; floor: 'complete-floor' | 'wasm-floor' }) {
    await deleteAllDatabases();
    const data = dataset(config.size, config.dimension, config.queries + WARMUP);
    const [engramModule, floorModule] = await Promise.all([loadSystem('engram'), loadSystem(config.floor)]);
    for (const module of [engramModule, floorModule]) {
      const system = await module.create(config.dimension, config.size);
      await system.insert(data, () => undefined);
      await system.close();
    }
    const engram = await engramModule.reopen(config.dimension, config.size, data.queries[0]!);
    const floor = await floorModule.reopen(config.dimension, config.size, data.queries[0]!);
    if ((await engram.count()) !== config.size || (await floor.count()) !== config.size) throw new Error('a reopened system lost memories');
    const systems = [engram, floor];
    for (const system of systems) for (const q of data.queries.slice(0, WARMUP)) await system.queryVector(q, K);
    // The fixed cost of one worker round trip: engram's smallest call (info()), median of 50.
    const trips: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await engram.count();
      trips.push(performance.now() - started);
    }
    const latencies: number[][] = [[], []];
    let disagreements = 0;
    const timed = data.queries.slice(WARMUP);
    for (let start = 0, turn = 0; start < timed.length; start += config.block, turn++) {
      const block = timed.slice(start, start + config.block);
      const answers: number[][][] = [[], []];
      for (const s of turn % 2 === 0 ? [0, 1] : [1, 0]) {
        for (const q of block) {
          const t0 = performance.now();
          answers[s]!.push(await systems[s]!.queryVector(q, K));
          latencies[s]!.push(performance.now() - t0);
        }
      }
      block.forEach((_, i) => {
        if (answers[0]![i]!.join() !== answers[1]![i]!.join()) disagreements++;
      });
      await yieldToPage();
    }
    await engram.close();
    await floor.close();
    await deleteAllDatabases();
    return { engram: percentiles(latencies[0]!), floor: percentiles(latencies[1]!), roundTripMs: percentiles(trips).p50, disagreements };
  },

  cleanup: deleteAllDatabases,
};

function used(before: MemoryFigure, after: MemoryFigure): { page: number; worker: number } {
  return { page: Math.max(0, after.pageBytes - before.pageBytes), worker: Math.max(0, after.workerBytes - before.workerBytes) };
}

async function cold(params: URLSearchParams) {
  const dimension = Number(params.get('dimension'));
  const size = Number(params.get('size'));
  const [query] = queries(1, dimension);
  const module = await loadSystem(params.get('cold')!);
  const opened = await phase(async () => {
    const reopenStarted = performance.now();
    const system = await module.reopen(dimension, size, query!);
    const answer = await system.queryVector(query!, K);
    const firstAnswerMs = performance.now(); // since the navigation started
    const reopenToAnswerMs = firstAnswerMs - reopenStarted;
    const count = await system.count();
    // "Tab killed": writes the snapshot will miss, then no close(); the harness navigates away (bench:cold, BENCH_KILLED=1).
    const killed = Number(params.get('killed') ?? 0);
    if (killed > 0) {
      if (!system.writeAfter) throw new Error(`${params.get('cold')} has no "tab killed" variant`);
      await system.writeAfter(killed, dimension);
    } else await system.close();
    return { firstAnswerMs, reopenToAnswerMs, count, answered: answer.length };
  }, 0);
  return { ...opened.value, longTasks: opened.longTasks };
}

export type WarmResult = Awaited<ReturnType<typeof bench.warm>>;
export type ColdResult = Awaited<ReturnType<typeof cold>>;

Object.assign(globalThis, { bench });
const params = new URLSearchParams(location.search);
if (params.has('cold')) {
  cold(params).then(
    (result) => Object.assign(globalThis, { coldResult: result }),
    (error: Error) => Object.assign(globalThis, { coldResult: { error: `${error.name}: ${error.message}` } }),
  );
}
