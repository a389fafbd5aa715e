/**
 * bench/node.ts's recall table at one size alone, to compare two commits
 * in one sitting: N synthetic facts (addMany, 5,000 at a time, the offline
 * model), 10 warm-up recalls, then 200 `recall(q, { k: 10 })` timed; prints
 * one JSON line with p50/p95/p99 (ms) and the load average before and after.
 *
 *   TREE=label N=100000 npx tsx bench/recall-at-size.ts
 *
 * For an older commit: `git archive <commit> | tar -x -C dir`, link
 * node_modules and ../shared beside it, copy this file into its bench/ and
 * run it there, alternating with this tree.
 */
import { loadavg } from 'node:os';
import { benchMemory, percentile } from './support.js';
import { syntheticTexts } from './synthetic.js';

const n = Number(process.env.N ?? 100_000);
const { memory } = await benchMemory();
const texts = syntheticTexts(n, 11);
for (let i = 0; i < n; i += 5000) await memory.facts.addMany(texts.slice(i, i + 5000).map((text, j) => ({ id: `m${i + j}`, text })));
const queries = syntheticTexts(200, 99).map((q) => q.split(' ').slice(0, 5).join(' '));
for (const q of queries.slice(0, 10)) await memory.recall(q);
const latencies: number[] = [];
const loadBefore = loadavg()[0]!;
for (const q of queries) {
  const started = performance.now();
  await memory.recall(q, { k: 10 });
  latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
const ms = (p: number) => Number(percentile(latencies, p).toFixed(3));
console.log(JSON.stringify({ tree: process.env.TREE, n, p50: ms(50), p95: ms(95), p99: ms(99), load: [Number(loadBefore.toFixed(2)), Number(loadavg()[0]!.toFixed(2))] }));
await memory.close();
