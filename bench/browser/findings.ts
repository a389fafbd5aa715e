/**
 * The analysis that goes with the figures: why engram is slower where it is,
 * and what would fix it. Written from measured runs (bench/results/) and a
 * CPU profile of engram in Chromium; update it when the figures change.
 */
export const WHY_SLOWER: Record<string, string> = {
  insert:
    'Chromium charges IndexedDB per record, and engram writes two rows per memory (the fact, with its indexes, and its vector row). ' +
    'A profile of 10,000-fact batches in the worker (2,000 per call since the pre-embedded path): fact put() 2.0–2.5 s and vector put() 1.5–2.0 s per 10k, everything else (validation, the existing-id check, the in-memory index, cloning) a few hundred ms; a raw IndexedDB test with the same row shapes costs the same CPU per item, so Dexie adds almost nothing. ' +
    'Measured layouts (engram end to end, 30k items): today 2,467/s; vector inside the fact row 3,647/s; one vector row per batch (a block) 4,205/s; blocks and 2 instead of 6 fact indexes 4,537/s. ' +
    'The peers that beat it write one value (brute force: one Float32Array; Voy, Orama: one serialised snapshot) or keep everything in memory until that snapshot.',
  p50:
    'Per query engram does more than a scan: page → worker call (about 0.3 ms, `rpcRoundTripMs`), a hop back to the page for the query vector (an artefact of handing it vectors through a lookup Embedder; the real model runs in the worker), ' +
    'the exact scan (int8 copy of every row in WebAssembly SIMD, then an f32 re-rank of the rows whose bound can still win: about 2.4 ms at 100k × 128-d and 5.3 ms at 384-d in `npm run bench:scan --chromium`), and then reading the hit records from IndexedDB and cloning them back. ' +
    'The main-thread peers return ids from memory. The IndexedDB read is the largest fixed cost left.',
  p95:
    'Same path as p50; the tail is the IndexedDB read, worker scheduling on a shared 2-core machine, and the index snapshot being saved in the background (a few blocks per transaction) after the insert.',
  hybrid: 'As for vector queries: Orama answers from its in-memory index; engram reads the hit records from IndexedDB in the worker and clones them to the page.',
  recall: 'engram is exact (recall@10 = 1.000 throughout); only an approximate index can lose here.',
  cold:
    'engram opens from its index snapshot (blocks of 2,048 memories: documents, texts and vectors), so a 100k store is about 50 IndexedDB values, not 200,000 records; the keyword postings are built after the first answer. ' +
    'What is left is deserialising 100,000 document objects, copying every vector into the matrix and quantising it to int8 (measured in Node: about 0.6 s of the load at 100k × 128-d, a third of it the int8 copy), and at 384-d reading three times the bytes. ' +
    'The brute-force peer reads one Float32Array and has no documents, filters or keyword index to restore.',
  memory:
    'The worker holds the matrix (f32 rows padded to a multiple of 8 floats, plus an int8 copy, capacity doubled), an IndexDoc and the text of each memory (for filters, ranking and the snapshot), the id maps and the BM25 postings; the page-side peers hold only their vectors. ' +
    'Read these memory figures with care: they are deltas of `measureUserAgentSpecificMemory` before and after, a GC in between can make a delta 0 (clamped), and the matrix in WebAssembly memory may not be attributed to the worker; a per-system heap snapshot would be the honest next measurement.',
};

export const CLOSING_NOTE = [
  'engram is exact everywhere (recall@10 = 1.000) and keeps the main thread free during queries. Done since the first run: the int8 scan with an exact f32 re-rank, the persisted index snapshot (cold start at 100k × 128-d 10.9 s → 1.8 s), vector-only ranking skipping BM25, pre-embedded `facts.addMany` with ids-only results in 2,000-item calls (no page task over 50 ms at 128-d). What is still missing, in order of expected gain:',
  '',
  '1. **Insert ≥ 5,000/s**: store vectors in per-batch blocks instead of one row per memory, and drop fact indexes no query uses (measured 4,537/s together in engram, ~5,500/s as raw IndexedDB). Needs a Dexie migration and a block-aware delete/update path.',
  '2. **Query p95 ≤ 10 ms**: a record cache in the worker for recall hits, invalidated by the write mark and the cross-tab signal, so a query does not wait on IndexedDB; and `recall` taking a pre-computed query embedding (no hop to the page).',
  '3. **Cold start ≤ 1.5 s**: store the documents column-wise in the snapshot (typed arrays instead of 100,000 objects), and the int8 codes with the vectors, so open is a few typed-array copies.',
  '',
  'Peers that could not finish at 100k in the full run: Orama\'s JSON snapshot exceeded V8\'s maximum string length (fixed after that run: the snapshot is now stored as a structured-cloned object, checked at 1k); Voy lost its snapshot at 100k × 128-d and threw `unwrap_throw` at 100k × 384-d (not investigated); hnswlib-wasm was skipped by the insert budget (efConstruction 100, 20 s at 10k), and its recall on random vectors falls to 0.73 / 0.53 at 10k with efSearch 100.',
].join('\n');
