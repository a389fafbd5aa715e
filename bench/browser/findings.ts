/**
 * The analysis that goes with the figures: why engram is slower where it is,
 * and what would fix it. Written from measured runs (bench/results/), stage
 * timings taken inside the worker, and raw IndexedDB experiments in the same
 * Chromium; update it when the figures change (bench/browser/render.ts
 * re-renders a results file from its JSON).
 */
export const WHY_SLOWER: Record<string, string> = {
  insert:
    'engram keeps every fact as its own IndexedDB row (so each one can be listed through an index, updated, deleted and forgotten on its own, and the store stays the source of truth), with the vectors beside them in blocks of up to 256 memories. ' +
    'Chromium charges IndexedDB mostly per request. A CPU profile of the worker on 2026-11-26 (30 additions of 1,000 facts with 128-d vectors; not a bench command) found about a third of the time in IndexedDB `put` calls (the structured clone and index keys Chromium works out on the calling thread, about 0.1 ms a fact), a tenth updating the in-memory index, and about half waiting for the transactions to commit; on the page, validating and copying a call of 1,000 facts took about 25 ms. ' +
    'The peers that beat it write one value for the whole set (brute force: one Float32Array; Orama and Voy: one serialised snapshot), which they must rewrite whole to persist any later change; at 100k × 384-d Orama\'s snapshot is already slower than engram\'s rows.',
  p50:
    'Per query engram does more than a scan: a page → worker call (about 0.2 ms, `rpcRoundTripMs` in the JSON), the exact scan (bounds from the high 16 bits of every f32 component in WebAssembly SIMD, then an exact score of the rows whose bound can still win), ' +
    'then one IndexedDB read transaction for the hit records (about 1–1.5 ms of the p50, timed with temporary marks in the worker) and cloning them back to the page. The peers answer on the main thread from memory and return ids only, which wins while their scan is shorter than that fixed cost (up to about 10k memories); at 100k engram\'s exact scan is the fastest.',
  p95:
    'Same path as p50; the tail is the IndexedDB read and worker scheduling on a shared 2-core machine.',
  hybrid:
    'As for vector queries: Orama answers from its in-memory index on the main thread; engram also scores BM25 over its keyword postings and reads the hit records from IndexedDB in the worker.',
  recall: 'engram is exact (recall@10 = 1.000 throughout); only an approximate index can lose here.',
  cold:
    'engram reopens from its index snapshot: per page of 2,048 memories, a row with the documents column-wise, their texts\' term lists and fingerprints (no texts, since snapshot format 7), and a file in the origin private file system with the f32 rows and the norms their bounds need, loaded page by page as they arrive (runs before 2026-11-26 stored texts in the row and an int8 copy beside the rows, in a Blob). ' +
    'Timed with temporary marks inside the worker at 100k on 2026-11-25, before pages moved to files and lost their texts (128-d / 384-d; not a bench command, `npm run bench:cold` gives the totals): navigation to createMemory ~90 ms, worker start ~50 ms, documents and texts ~45 ms, waiting for the vector Blobs 90 / 165 ms, index load 120 / 180 ms (of which the f32 copy 30 / 70 ms, mostly first-touching new memory, and the id maps ~80 ms), first query ~40 ms. ' +
    'The floors read one Float32Array on the page: no worker, no documents, texts, filters or keyword index to restore.',
  memory:
    'entity-db keeps no vectors in memory (it reads every one from IndexedDB for each query, hence its 1–3 s queries at 100k), and Voy\'s index lives in WebAssembly memory the measurement does not attribute. ' +
    'The worker holds the vectors once (each f32 row as its two 16-bit halves, 1.02× the raw vectors at 100k × 384-d; runs before 2026-11-26 kept an int8 copy beside the f32 rows, 1.66× with power-of-two capacity), the documents (column-wise per snapshot page, objects only for memories written since the last save), a 53-bit fingerprint of each text loaded from a page (the text itself only for memories written since), the id maps and the BM25 postings; the page-side peers hold only their vectors. ' +
    'Read these memory figures with care: the JS heaps are deltas of `measureUserAgentSpecificMemory` before and after (a GC in between can make a delta 0, clamped), and WebAssembly memory is each system\'s own WebAssembly.Memory sizes, added. `npm run bench:footprint` measures engram\'s worker at rest after full collections, over the DevTools protocol.',
};

export const CLOSING_NOTE = [
  'engram is exact everywhere (recall@10 = 1.000) and keeps the main thread free in every phase. Since the first run (browser-2026-11-23-run1.md): the int8 scan with an exact f32 re-rank; the persisted index snapshot, now with documents column-wise and the int8 rows saved with the f32 rows in one Blob per block (cold start at 100k × 384-d 9.75 s → about 0.7 s); vectors stored in blocks of 256 and facts without the indexes no query used (insert at 100k about 1,600–2,100/s → about 8,000/s on the machine of that day: a durable insert moves with the machine\'s IndexedDB, so since 2026-11-26 each run also measures plain IndexedDB code writing engram\'s rows, and the targets table gives engram\'s ratio to it); `recall(text, { embedding })`, so the benchmark hands engram its query vectors as it hands them to the peers; a cosine-only ranking searches a pool of k.',
  '',
  'What would close the remaining gaps to the peers, in order of expected gain:',
  '',
  '1. **Query p50 at every size**: a record cache in the worker, filled as records are written and read, so a recall whose hits are cached skips the IndexedDB read. Timed at 1k × 128-d: a recall takes 1.1 ms on the page, 0.84 ms in the worker, of which 0.75 ms is that read. It must never serve a stale record: kept by a Dexie DBCore middleware that sees every mutation of facts and episodes (as the write mark is kept), fills from a write only when its transaction commits and no later one touched the id, from a read only if nothing was invalidated while it ran, is cleared on range deletes and told of other tabs\' writes by the change signal. The cost is the memory of the cached records and a copy of each record written.',
  '2. **Durable insert against one-value peers**: a write-ahead segment (a batch as one row, moved into per-memory rows in the background) would make an acknowledged bulk insert one put per batch; reads would have to merge the pending segments, and the background move costs the same puts later, so it pays only for bursty loads.',
  '3. **Cold start**: the documents and texts could join the Blob (about 30 ms), the task index and the job queue could load while the snapshot is read (about 10 ms), and on machines with more cores a second worker reading the Blobs measured about 70 ms faster at 384-d.',
  '',
  'Peers that did not finish: Voy lost its snapshot at 100k × 128-d and threw `unwrap_throw` inside its WebAssembly at 100k × 384-d (as in run1; not investigated); hnswlib-wasm (M 16, efConstruction 100, efSearch 100) took 109 s to insert 100k × 128-d and was skipped by the insert budget at 100k × 384-d, and its recall@10 on these random vectors falls to 0.73 / 0.53 at 10k and 0.29 at 100k × 128-d, so its query latency is not compared with engram\'s.',
].join('\n');
