/**
 * What an open pays to put the index snapshot's pages into the index
 * (index-sync/index-loader.ts `loadBatch`), measured on its own in Node at
 * 1×: the CPU part of a first answer that grows with the store (issue 45;
 * at 100k under 4× it is about a second of the worker, by
 * bench/browser/worker-open-profile.ts). Each trial decodes structured
 * clones of the pages, as IndexedDB hands them back (fresh id strings, whose
 * hashes the first map lookup computes), then loads them into a new index.
 * Medians of the trials, load average beside them.
 *
 *   npx tsx bench/load-batch.ts [--size 100000] [--trials 9] [--dimension 128]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadBatch, quantizedRows, reserveRows, type IndexBatch } from '../src/index-sync/index-loader.js';
import { PAGE_SIZE } from '../src/index-sync/snapshot-pages.js';
import { encodeDocs, readColumns } from '../src/search/doc-columns.js';
import type { IndexDoc } from '../src/search/index-doc.js';
import { MemoryIndex } from '../src/search/memory-index.js';
import { readTermLists, termListsOf } from '../src/search/term-lists.js';
import { textFingerprints } from '../src/search/text-fingerprint.js';
import { median } from './support.js';
import { rng, syntheticTexts } from './synthetic.js';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '100000' }, trials: { type: 'string', default: '9' }, dimension: { type: 'string', default: '128' } } });
const SIZE = Number(args.size);
const D = Number(args.dimension);

const random = rng(7);
const texts = syntheticTexts(SIZE, 7);
const docs: IndexDoc[] = texts.map((_, i) => ({
  id: crypto.randomUUID(),
  userId: 'default',
  kind: i % 3 === 0 ? 'turn' : 'fact',
  createdAt: 1_700_000_000_000 + i * 60_000,
  touchedAt: 1_700_000_000_000 + i * 60_000,
  tags: [],
  importance: (i % 10) / 10,
  pinned: false,
  archived: false,
  times: [],
  ...(i % 3 === 0 ? { speaker: i % 2 ? 'Ana' : 'Ben', sessionId: `s${Math.floor(i / 40)}` } : {}),
  fields: {},
}));
const vectors = new Float32Array(SIZE * D);
for (let i = 0; i < vectors.length; i++) vectors[i] = random() * 2 - 1;

/** The pages as a snapshot stores them (a structured clone each trial gives fresh copies). */
const pages: { docs: ReturnType<typeof encodeDocs>; terms: ReturnType<typeof termListsOf>; fingerprints: Float64Array; vectors: Float32Array; quantized?: IndexBatch['quantized'] }[] = [];
const source = new MemoryIndex(D);
for (let start = 0; start < SIZE; start += PAGE_SIZE) {
  const end = Math.min(SIZE, start + PAGE_SIZE);
  const page = {
    docs: encodeDocs(docs.slice(start, end)),
    terms: termListsOf(texts.slice(start, end)),
    fingerprints: textFingerprints(texts.slice(start, end)),
    vectors: vectors.slice(start * D, end * D),
  };
  pages.push(page);
  loadBatch(source, decode(structuredClone(page)));
}
for (let p = 0; p < pages.length; p++) {
  const ids = docs.slice(p * PAGE_SIZE, (p + 1) * PAGE_SIZE).map((doc) => doc.id);
  pages[p]!.quantized = quantizedRows(source, ids);
}

function decode(page: (typeof pages)[number]): IndexBatch {
  const columns = readColumns(page.docs)!;
  return { docs: columns, fingerprints: page.fingerprints, lists: readTermLists(page.terms, columns.size)!, vectors: page.vectors, quantized: page.quantized };
}

const times: number[] = [];
for (let trial = 0; trial < Number(args.trials); trial++) {
  const cloned = structuredClone(pages);
  const start = performance.now();
  const index = new MemoryIndex(D);
  reserveRows(index, new Map([['default', SIZE]]));
  for (const page of cloned) loadBatch(index, decode(page));
  times.push(performance.now() - start);
  if (index.size !== SIZE) throw new Error(`loaded ${index.size} of ${SIZE}`);
}
console.log(`loadBatch: ${SIZE} memories in ${pages.length} pages, ${D}-d: median ${median(times).toFixed(1)} ms (${times.map((t) => t.toFixed(0)).join(', ')}); load ${loadavg()[0]!.toFixed(1)}`);
