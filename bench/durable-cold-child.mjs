// The durable store's cold start (bench/durable.ts), in a fresh process with
// plain Node and the built package, as an agent that restarts meets it.
// Arguments: the store's directory, its size, and the query as JSON
// ({ text, vector }). Prints one JSON line.
import { createMemory } from '../dist/index.node.js';

const [directory, sizeArg, queryJson] = process.argv.slice(2);
const size = Number(sizeArg);
const query = JSON.parse(queryJson);
const vector = Float32Array.from(query.vector);
// The same options as bench/browser/peers/engram-calls.ts (memoryOptions, VECTOR_ONLY, givenVectorsOnly).
const embedder = {
  id: `bench-random-unit-${vector.length}`,
  dimension: vector.length,
  async embed(texts) {
    throw new Error(`bench: engram was asked to embed ${texts.length} text(s), but every vector is given`);
  },
};
const started = performance.now();
const memory = await createMemory({
  name: `bench-engram-${vector.length}-${size}`,
  embedder,
  ranking: { denseWeight: 1, weights: { similarity: 1, importance: 0, recency: 0, pinned: 0 } },
  directory,
});
const hits = await memory.recall(query.text, { k: 10, touch: false, embedding: vector });
const coldMs = performance.now() - started;
// Since the process started (module loading included).
const fromProcessStartMs = process.uptime() * 1000;
const info = await memory.info();
console.log(JSON.stringify({ coldMs, fromProcessStartMs, indexed: info.indexed, openedFrom: info.openedFrom, hits: hits.length }));
await memory.close();
process.exit(0);
