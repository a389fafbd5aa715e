import { loadHnswlib, syncFileSystem, type HierarchicalNSW, type HnswlibModule } from 'hnswlib-wasm';
import { yieldToPage } from '../page/metrics.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * hnswlib-wasm: approximate HNSW graph search (hnswlib compiled to
 * WebAssembly), on the main thread. Durability is its own: `writeIndex()` to
 * Emscripten's virtual file system, then `syncFS` to IndexedDB (IDBFS).
 *
 * Parameters: M = 16 (hnswlib's default), efConstruction = 100 (half the
 * default, to keep 100k × 384-d builds within the run's budget), efSearch = 100.
 */
const M = 16;
const EF_CONSTRUCTION = 100;
const EF_SEARCH = 100;
const BATCH = 1000;

const fileOf = (dimension: number, size: number) => `bench-${dimension}-${size}.hnsw`;

function query(index: HierarchicalNSW, vector: Float32Array, k: number): number[] {
  return index.searchKnn(vector, k, undefined).neighbors;
}

let library: Promise<HnswlibModule> | undefined;
const lib = () => (library ??= loadHnswlib('IDBFS'));

export const hnswlib: SystemModule = {
  async create(dimension, size) {
    const hnsw = await lib();
    let index: HierarchicalNSW | undefined;
    const system: BenchSystem = {
      name: 'hnswlib-wasm (HNSW)',
      hybrid: false,
      async insert(data, searchable) {
        index = new hnsw.HierarchicalNSW('cosine', dimension, '');
        index.initIndex(size, M, EF_CONSTRUCTION, 100);
        index.setEfSearch(EF_SEARCH);
        for (let start = 0; start < size; start += BATCH) {
          const end = Math.min(start + BATCH, size);
          const labels = Array.from({ length: end - start }, (_, j) => start + j);
          index.addPoints(data.vectors.slice(start, end), labels, false);
          // Batches of 1,000 with a yield between them: how an app would keep the page responsive.
          await yieldToPage();
        }
        searchable();
        await index.writeIndex(fileOf(dimension, size));
        await syncFileSystem('write');
      },
      wasmBytes: async () => (hnsw as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer.byteLength,
      queryVector: async (q, k) => query(index!, q.vector, k),
      async close() {
        index = undefined;
      },
    };
    return system;
  },

  async reopen(dimension, size) {
    const hnsw = await lib();
    await syncFileSystem('read');
    const index = new hnsw.HierarchicalNSW('cosine', dimension, '');
    await index.readIndex(fileOf(dimension, size), size);
    index.setEfSearch(EF_SEARCH);
    const reopened: ReopenedSystem = {
      count: async () => index.getCurrentCount(),
      queryVector: async (q, k) => query(index, q.vector, k),
      close: async () => undefined,
    };
    return reopened;
  },
};
