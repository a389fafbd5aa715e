/**
 * The analysis that goes with the figures: why engram is slower where it is,
 * and what would fix it. Written from measured runs (bench/results/) and a
 * CPU profile of engram in Chromium; update it when the figures change.
 */
export const WHY_SLOWER: Record<string, string> = {
  insert:
    'Chromium charges IndexedDB per record, and engram writes two rows per memory (the fact, with five indexes including multi-entry tags, and its vector row) in one transaction per 10,000. ' +
    'A CPU profile of 20,000 inserts with engram in-process in Chromium: about half the time is the renderer serialising 40,000 values inside put(), the rest is waiting on the IndexedDB backend; the in-memory index (matrix + BM25 postings) is under 1.5 s of it. ' +
    'The peers that beat it write one value (brute force: one Float32Array; Voy, Orama: one serialised snapshot) or keep everything in memory until that snapshot.',
  p50:
    'Per query engram does more than a scan: page → worker call (about 0.1 ms measured, `rpcRoundTripMs`), a hop back to the page for the query vector (an artefact of handing it vectors through a lookup Embedder; the real model runs in the worker), ' +
    'an exact SIMD scan of every row of the user\'s matrix, a BM25 pass even when the ranking is vector-only, and then reading the hit records from IndexedDB (two bulkGet requests) and cloning them back. ' +
    'The main-thread peers return ids from memory. The IndexedDB read is the largest fixed cost, and it is what a shared, noisy 2-core machine stretches.',
  p95:
    'Same path as p50; the tail is the IndexedDB read and worker scheduling under load (the machine is shared with other test runs), and at 100k the scan itself.',
  hybrid: 'As for vector queries: Orama answers from its in-memory index; engram reads the hit records from IndexedDB in the worker and clones them to the page.',
  recall: 'engram is exact (recall@10 = 1.000 throughout); only an approximate index can lose here.',
  cold:
    'At open engram reads every fact record and every vector row (200,000 IndexedDB values at 100k), rebuilds the BM25 postings and the matrix, and only then answers. ' +
    'Replacing the vector cursor (`each`) with one `getAll` was measured and gave nothing (9.0 s against 7.7 s, within the noise), so the cost is the record count and deserialisation, not the cursor. ' +
    'Snapshot peers read one value.',
  memory:
    'The worker holds the matrix (rows padded to a multiple of 8 floats, capacity doubled), an IndexDoc per memory for filters and ranking, the id maps and the BM25 postings; the page-side peers hold only their vectors. ' +
    'Read these memory figures with care: they are deltas of `measureUserAgentSpecificMemory` before and after, a GC in between can make a delta 0 (clamped), and engram\'s worker figure is the same 87.7 MB at 128-d and 384-d, which suggests the matrix in WebAssembly memory is not attributed to the worker; a per-system heap snapshot would be the honest next measurement.',
};

export const CLOSING_NOTE = [
  'engram meets the exactness target everywhere (recall@10 = 1.000, exact search) and keeps the main thread free during queries, but at 100k it misses the insert, cold-start and p95 targets in this run. The fixes, in order of expected gain:',
  '',
  '1. **Chunked vector storage** (one IndexedDB value per block of, say, 4,096 rows of one user: a contiguous Float32Array plus its ids) instead of one row per memory. It halves the records written per insert, and turns the vector load at open into ~25 reads at 100k, straight into the single contiguous per-user matrix. Needs a Dexie version with a migration.',
  '2. **Open without reading every record**: keep a compact per-user index snapshot (IndexDoc fields and BM25 postings) next to the vector blocks, answer the first query as soon as the vectors are in, and build the keyword index after it.',
  '3. **Record cache in the worker** for recall hits (invalidated by the same change signal that refreshes the index), so a query does not wait on IndexedDB; and skip the BM25 pass when the ranking gives keywords no weight.',
  '4. **int8-quantised in-memory matrix with an exact float re-rank** of the top candidates: a quarter of the scan bandwidth and memory, which matters at 100k × 384-d.',
  '5. **Smaller page-side batches**: the main-thread long tasks during engram\'s 100k insert come from structured-cloning 10,000-item batches on the page (the arguments, the lookup embedder\'s vectors, the 10,000 facts addMany returns) and the GC after them; an `addMany` option that returns ids only would remove most of it.',
  '',
  'Peers that could not finish at 100k in this run: Orama\'s JSON snapshot exceeded V8\'s maximum string length (fixed after the run: the snapshot is now stored as a structured-cloned object, checked at 1k); Voy lost its snapshot at 100k × 128-d and threw `unwrap_throw` at 100k × 384-d (not investigated); hnswlib-wasm was skipped by the insert budget (efConstruction 100, 20 s at 10k), and its recall on random vectors falls to 0.73 / 0.53 at 10k with efSearch 100.',
  '',
  'Also found while measuring: `createMemory({ worker: false })` in a browser fails with Dexie\'s MissingAPIError, because the in-process path passes `indexedDB` but not `IDBKeyRange` (src/memory.ts → EngramDatabase); passing both works.',
].join('\n');
