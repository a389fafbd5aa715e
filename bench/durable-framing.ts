/**
 * What the durable store's framing costs at open: one store of N facts
 * (128-d given vectors, as bench/durable.ts), opened as it is (a framed
 * image: checksummed chunks of rows) and as the older unframed image of the
 * same rows (one v8 value, no checksum), which this version still reads.
 * The two are opened read-only in turns (A, B, A, B, ...), so the machine's
 * load falls on both alike; medians with the load average.
 *
 *   npx tsx bench/durable-framing.ts             (N = 100,000; 5 pairs)
 *   BENCH_FRAMING_SIZE=10000 BENCH_FRAMING_RUNS=7 npx tsx bench/durable-framing.ts
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { createMemory, type MemoryOptions } from '../src/index.node.js';
import { openDurableStore } from '../src/store/durable/durable-store.js';
import { imageOf, scanImage } from '../src/store/durable/store-image.js';
import { dataset } from './browser/page/dataset.js';
import { insertFacts, memoryOptions, VECTOR_ONLY } from './browser/peers/engram-calls.js';
import { median } from './support.js';

const DIM = 128;
const SIZE = Number(process.env.BENCH_FRAMING_SIZE ?? 100_000);
const RUNS = Number(process.env.BENCH_FRAMING_RUNS ?? 5);

const root = mkdtempSync(join(tmpdir(), 'engram-framing-'));
try {
  const framed = join(root, 'framed');
  const memory = await createMemory({ ...memoryOptions(DIM, SIZE, VECTOR_ONLY), directory: framed } as MemoryOptions);
  await insertFacts(memory, dataset(SIZE, DIM, 1));
  await memory.close({ timeoutMs: 300_000 });
  const unframed = join(root, 'unframed');
  cpSync(framed, unframed, { recursive: true });
  const name = memoryOptions(DIM, SIZE, VECTOR_ONLY).name;
  const folder = (directory: string) => join(directory, encodeURIComponent(name));
  const image = imageOf(scanImage(readFileSync(join(folder(framed), 'image.v8'))));
  writeFileSync(join(folder(unframed), 'image.v8'), serialize({ ...image, format: 1 }));

  const times: Record<string, number[]> = { framed: [], unframed: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const [label, directory] of [['framed', framed], ['unframed', unframed]] as const) {
      const started = performance.now();
      const store = await openDurableStore(directory, name, { readOnly: true });
      times[label]!.push(performance.now() - started);
      if (store.opened.imageRows === 0) throw new Error('bench: nothing loaded');
      await store.close();
    }
  }
  const bytes = (directory: string) => statSync(join(folder(directory), 'image.v8')).size;
  console.log(`durable image framing, ${SIZE.toLocaleString('en')} facts, ${RUNS} pairs in turns; load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
  for (const [label, directory] of [['framed', framed], ['unframed', unframed]] as const) {
    console.log(`${label.padEnd(9)} image ${bytes(directory).toLocaleString('en')} B; read + verify + load median ${median(times[label]!).toFixed(0)} ms (runs: ${times[label]!.map((t) => t.toFixed(0)).join(', ')})`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
