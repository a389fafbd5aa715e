/**
 * How long a snapshot save holds the engine's thread at a stretch: an index
 * of BENCH_SIZE (100k) memories of BENCH_DIM (128) dimensions in Node
 * (fake-indexeddb), every page rewritten, and the time between two of the
 * save's yields to calls (its `pace`) recorded. A recall that arrives while
 * a save is running waits for the stretch in progress. Prints the median,
 * p95 and longest stretch and the whole save, for BENCH_RUNS (3) saves.
 *
 *   npm run bench:save
 */
import { loadavg } from 'node:os';
import { EngramDatabase } from '../src/store/database.js';
import { saveSnapshot, SnapshotPages } from '../src/index-sync/index-snapshot.js';
import { MemoryIndex } from '../src/search/memory-index.js';
import { freshIndexedDB } from '../test/support/memory.js';
import { rng, syntheticTexts } from './synthetic.js';

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const DIM = Number(process.env.BENCH_DIM ?? 128);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const { indexedDB, IDBKeyRange } = freshIndexedDB();
const db = new EngramDatabase('bench-snapshot-save', { indexedDB, IDBKeyRange });
await db.open();
const index = new MemoryIndex(DIM);
const pages = new SnapshotPages();
index.reportChangesTo(pages);
const texts = syntheticTexts(SIZE, 11);
const random = rng(3);
for (let i = 0; i < SIZE; i++) {
  const vector = Float32Array.from({ length: DIM }, () => random() - 0.5);
  const norm = Math.hypot(...vector);
  for (let j = 0; j < DIM; j++) vector[j]! /= norm;
  index.upsert({
    doc: { id: `m${i}`, userId: 'u', kind: 'fact', createdAt: i, touchedAt: i, tags: [], importance: 0.5, pinned: false, archived: false, times: [], fields: {} },
    text: texts[i]!,
    vector,
  });
}
const ms = (value: number) => value.toFixed(1);
console.log(`snapshot save, ${SIZE.toLocaleString('en-US')} memories × ${DIM}-d, every page rewritten (Node ${process.version}); load before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (let run = 0; run < RUNS; run++) {
  pages.allDirty();
  const stretches: number[] = [];
  let since = performance.now();
  const started = since;
  const saved = await saveSnapshot(db, index, pages, { id: 'bench', dimension: DIM }, db.writeMark.committed, null, async () => {
    stretches.push(performance.now() - since);
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  });
  const total = performance.now() - started;
  stretches.push(performance.now() - since);
  const sorted = [...stretches].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
  console.log(`run ${run + 1}: ${saved ? 'saved' : 'NOT saved'} in ${ms(total)} ms; ${stretches.length} stretches between yields: median ${ms(at(0.5))} ms, p95 ${ms(at(0.95))} ms, longest ${ms(sorted[sorted.length - 1]!)} ms`);
}
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
db.close();
