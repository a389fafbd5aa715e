import { createMemory, type Embedder, type Memory, type RankingOptions } from 'engram';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * engram through its public API, in its Web Worker. The precomputed vectors
 * go in with each fact (`embedding`) and with each query (`recall(text,
 * { embedding })`), as an app with its own vectors would pass them, so only
 * storage and search are measured, as for the peers. The embedder engram is
 * opened with only declares the vector space: nothing here asks it to embed
 * (it throws if asked, so a regression that did would show).
 */

/** Vector-only: relevance is the cosine, nothing else moves the order. */
const VECTOR_ONLY: RankingOptions = { denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } };
/**
 * Facts per addMany call (one transaction each). addMany takes up to 10,000,
 * but validating and cloning a batch is main-thread work that grows with it:
 * 10,000 × 128-d is a 70–200 ms task on this machine; 2,000 × 384-d still
 * gave 4 tasks of up to 76 ms; 1,000 stays under the 50 ms long-task line at
 * both widths, for about the same throughput (the cost is per item).
 */
const BATCH = 1_000;

function givenVectorsOnly(dimension: number): Embedder {
  return {
    id: `bench-random-unit-${dimension}`,
    dimension,
    async embed(texts) {
      throw new Error(`bench: engram was asked to embed ${texts.length} text(s), but every vector is given`);
    },
  };
}

const nameOf = (dimension: number, size: number) => `bench-engram-${dimension}-${size}`;
const indexOf = (id: string) => Number(id.slice(1));

async function open(dimension: number, size: number, ranking?: RankingOptions): Promise<Memory> {
  return createMemory({ name: nameOf(dimension, size), embedder: givenVectorsOnly(dimension), ranking });
}

async function recallIds(memory: Memory, query: { text: string; vector: Float32Array }, k: number): Promise<number[]> {
  const hits = await memory.recall(query.text, { k, touch: false, embedding: query.vector });
  return hits.map((h) => indexOf(h.memory.id));
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
        for (let start = 0; start < data.texts.length; start += BATCH) {
          const texts = data.texts.slice(start, start + BATCH);
          const facts = texts.map((text, j) => ({ id: `m${start + j}`, text, embedding: data.vectors[start + j]! }));
          // Resolves after the IndexedDB transaction committed: durable and searchable at once. Ids only: the bench needs no records back.
          await memory.facts.addMany(facts, { returnRecords: false });
        }
        searchable();
      },
      queryVector: (query, k) => recallIds(memory!, query, k),
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

  async reopen(dimension, size, query) {
    const memory = await open(dimension, size, VECTOR_ONLY);
    const reopened: ReopenedSystem = {
      count: async () => (await memory.info()).indexed,
      queryVector: (q, k) => recallIds(memory, q, k),
      close: () => memory.close(),
    };
    return reopened;
  },
};
