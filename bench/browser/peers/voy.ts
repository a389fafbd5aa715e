import * as voyBindings from 'voy-search/voy_search_bg.js';
import voyWasmUrl from 'voy-search/voy_search_bg.wasm?url';
import { getSnapshot, putSnapshot } from '../page/snapshot-store.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * voy-search: a k-d tree in WebAssembly (Rust), on the main thread. It keeps
 * its index in memory; durability is `serialize()` written to IndexedDB and
 * a reload is `Voy.deserialize()`.
 *
 * Its package imports the .wasm as an ES module (a bundler feature Vite does
 * not have), so the page instantiates it by hand and hands it to the bindings.
 */
let ready: Promise<void> | undefined;
/** The module's memory, for the memory column. */
let wasmMemory: WebAssembly.Memory | undefined;
function init(): Promise<void> {
  ready ??= (async () => {
    const { instance } = await WebAssembly.instantiateStreaming(fetch(voyWasmUrl), { './voy_search_bg.js': voyBindings as unknown as WebAssembly.ModuleImports });
    voyBindings.__wbg_set_wasm(instance.exports);
    wasmMemory = instance.exports.memory as WebAssembly.Memory;
  })();
  return ready;
}

const key = (dimension: number, size: number) => `voy-${dimension}-${size}`;

function query(index: voyBindings.Voy, vector: Float32Array, k: number): number[] {
  return index.search(vector, k).neighbors.map((n) => Number(n.id));
}

export const voy: SystemModule = {
  async create(dimension, size) {
    await init();
    let index: voyBindings.Voy | undefined;
    const system: BenchSystem = {
      name: 'voy-search (k-d tree)',
      hybrid: false,
      wasmBytes: async () => wasmMemory?.buffer.byteLength ?? 0,
      async insert(data, searchable) {
        // Voy takes its resources as JSON-like objects with plain-array embeddings.
        const embeddings = data.texts.map((text, i) => ({ id: String(i), title: text, url: '', embeddings: Array.from(data.vectors[i]!) }));
        index = new voyBindings.Voy({ embeddings });
        searchable();
        await putSnapshot(key(dimension, size), index.serialize());
      },
      queryVector: async (q, k) => query(index!, q.vector, k),
      async close() {
        index?.free();
        index = undefined;
      },
    };
    return system;
  },

  async reopen(dimension, size) {
    await init();
    const serialized = await getSnapshot<string>(key(dimension, size));
    if (!serialized) throw new Error('voy: no snapshot in IndexedDB');
    const index = voyBindings.Voy.deserialize(serialized);
    const reopened: ReopenedSystem = {
      count: async () => index.size(),
      queryVector: async (q, k) => query(index, q.vector, k),
      close: async () => index.free(),
    };
    return reopened;
  },
};
