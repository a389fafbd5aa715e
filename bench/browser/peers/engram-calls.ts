import type { Embedder, Memory, MemoryOptions, RankingOptions } from 'engram';
import type { Dataset } from '../page/dataset.js';

/**
 * The engram calls of the vector benchmark, shared by the browser adapter
 * (peers/engram.ts, engram in its Web Worker) and the Node table
 * (bench/random-vectors.ts, engram in-process on fake-indexeddb), so both
 * measure the same thing: the same options, the same inserts, the same recall.
 * Types only from 'engram': each side brings its own createMemory (the page
 * the built package, Node the sources).
 */

/** Vector-only: relevance is the cosine, nothing else moves the order. */
export const VECTOR_ONLY: RankingOptions = { denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } };

/**
 * Facts per addMany call (one transaction each). addMany takes up to 10,000,
 * but validating and cloning a batch is main-thread work that grows with it:
 * 10,000 × 128-d is a 70–200 ms task on this machine; 2,000 × 384-d still
 * gave 4 tasks of up to 76 ms; 1,000 stays under the 50 ms long-task line at
 * both widths, for about the same throughput (the cost is per item).
 */
export const BATCH = 1_000;

/**
 * The facts bring their vectors and so does every query (`recall(text,
 * { embedding })`), as an app with its own vectors would pass them: only
 * storage and search are measured, as for the peers. The embedder only
 * declares the vector space; it throws if asked to embed, so a regression
 * that made engram embed would show.
 */
export function givenVectorsOnly(dimension: number): Embedder {
  return {
    id: `bench-random-unit-${dimension}`,
    dimension,
    async embed(texts) {
      throw new Error(`bench: engram was asked to embed ${texts.length} text(s), but every vector is given`);
    },
  };
}

/** createMemory's options for one (dimension, size) database; `ranking` undefined is engram's default (hybrid). */
export function memoryOptions(dimension: number, size: number, ranking?: RankingOptions): MemoryOptions {
  return { name: `bench-engram-${dimension}-${size}`, embedder: givenVectorsOnly(dimension), ranking };
}

/** Every item as a fact with its vector, BATCH per addMany; resolves once the last transaction committed (durable and searchable). */
export async function insertFacts(memory: Memory, data: Dataset): Promise<void> {
  for (let start = 0; start < data.texts.length; start += BATCH) {
    const texts = data.texts.slice(start, start + BATCH);
    const facts = texts.map((text, j) => ({ id: `m${start + j}`, text, embedding: data.vectors[start + j]! }));
    // Ids only: the bench needs no records back.
    await memory.facts.addMany(facts, { returnRecords: false });
  }
}

const indexOf = (id: string) => Number(id.slice(1));

/** The top k as data set positions (fact `m<i>` is item i). */
export async function recallIds(memory: Memory, query: { text: string; vector: Float32Array }, k: number): Promise<number[]> {
  const hits = await memory.recall(query.text, { k, touch: false, embedding: query.vector });
  return hits.map((h) => indexOf(h.memory.id));
}
