import { F32Floor } from '../../floor/f32-floor.js';
import { getSnapshot, putSnapshot } from '../page/snapshot-store.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * A floor as a peer (bench/floor/f32-floor.ts): the best simple exact search,
 * with no index, on the main thread. Persisted as one IndexedDB value (the
 * padded matrix), written with the same durability as every system.
 */
export function floorPeer(kind: 'wasm' | 'js', name: string): SystemModule {
  const key = (dimension: number, size: number) => `floor-${kind}-${dimension}-${size}`;
  return {
    async create(dimension, size) {
      let floor: F32Floor | undefined;
      const system: BenchSystem = {
        name,
        hybrid: false,
        async insert(data, searchable) {
          floor = new F32Floor(dimension, size, kind);
          for (const vector of data.vectors) floor.add(vector);
          searchable();
          await putSnapshot(key(dimension, size), floor.rows());
        },
        queryVector: async (query, k) => floor!.topK(query.vector, k),
        wasmBytes: async () => (kind === 'wasm' ? floor!.bytes : 0),
        async close() {
          floor = undefined;
        },
      };
      return system;
    },

    async reopen(dimension, size) {
      const rows = await getSnapshot<Float32Array>(key(dimension, size));
      if (!rows) throw new Error(`${name}: no snapshot in IndexedDB`);
      const floor = new F32Floor(dimension, size, kind);
      floor.restore(rows);
      const reopened: ReopenedSystem = {
        count: async () => floor.size,
        queryVector: async (query, k) => floor.topK(query.vector, k),
        close: async () => undefined,
      };
      return reopened;
    },
  };
}
