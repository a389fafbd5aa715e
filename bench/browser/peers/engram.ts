import { createMemory, type Memory, type RankingOptions } from 'engram';
import { insertFacts, memoryOptions, recallIds, VECTOR_ONLY } from './engram-calls.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';
import { dataset } from '../page/dataset.js';

/**
 * engram through its public API, in its Web Worker. The precomputed vectors
 * go in with each fact (`embedding`) and with each query (`recall(text,
 * { embedding })`), as an app with its own vectors would pass them, so only
 * storage and search are measured, as for the peers. The calls themselves
 * live in engram-calls.ts, shared with the Node table (bench/random-vectors.ts).
 */

async function open(dimension: number, size: number, ranking?: RankingOptions): Promise<Memory> {
  return createMemory(memoryOptions(dimension, size, ranking));
}

export const engram: SystemModule = {
  async create(dimension, size) {
    // Opening (worker start, database open) happens before the insert clock starts, as a peer's constructor does.
    let memory: Memory | undefined = await open(dimension, size, VECTOR_ONLY);
    let hybrid: Memory | undefined;
    let reopenMs = 0;
    const system: BenchSystem = {
      name: 'engram',
      hybrid: true,
      async insert(data, searchable) {
        memory ??= await open(dimension, size, VECTOR_ONLY);
        // Resolves after the last IndexedDB transaction committed: durable and searchable at once.
        await insertFacts(memory, data);
        searchable();
      },
      queryVector: (query, k) => recallIds(memory!, query, k),
      // The vectors' WebAssembly memory in the worker (its JS heap is in measureUserAgentSpecificMemory's worker figure).
      wasmBytes: async () => (await (hybrid ?? memory!).info()).vectorBytes,
      async queryHybrid(query, k) {
        if (!hybrid) {
          // Hybrid uses the default ranking (dense + BM25 + importance/recency): a second open of the same database.
          await memory!.close();
          const started = performance.now();
          hybrid = await open(dimension, size);
          reopenMs = performance.now() - started;
        }
        return recallIds(hybrid, query, k);
      },
      async extras() {
        const m = hybrid ?? memory!;
        const rtts: number[] = [];
        for (let i = 0; i < 50; i++) {
          const started = performance.now();
          await m.info();
          rtts.push(performance.now() - started);
        }
        rtts.sort((a, b) => a - b);
        return { rpcRoundTripMs: Number(rtts[25]!.toFixed(3)), warmReopenMs: Math.round(reopenMs) };
      },
      async close() {
        await hybrid?.close();
        await memory?.close();
      },
    };
    return system;
  },

  async reopen(dimension, size) {
    const memory = await open(dimension, size, VECTOR_ONLY);
    const reopened: ReopenedSystem = {
      count: async () => (await memory.info()).indexed,
      queryVector: (q, k) => recallIds(memory, q, k),
      close: () => memory.close(),
      async writeAfter(n, dimension) {
        // Fresh random directions: a vector equal to a stored fact's would merge into it (facts.add), not add one.
        const { texts } = dataset(n, dimension, 1);
        for (let i = 0; i < n; i++) {
          const embedding = Float32Array.from({ length: dimension }, () => Math.random() - 0.5);
          await memory.facts.add({ text: `${texts[i]!} (written before the tab was killed)`, embedding });
        }
      },
    };
    return reopened;
  },
};
