import { putSnapshot, getSnapshot } from '../page/snapshot-store.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * The floor: one contiguous Float32Array, a dot product per row in plain JS,
 * a bounded selection of the best k. Persisted as one IndexedDB value.
 */
class Matrix {
  constructor(
    readonly dimension: number,
    readonly rows: Float32Array,
  ) {}

  get size(): number {
    return this.rows.length / this.dimension;
  }

  topK(query: Float32Array, k: number): number[] {
    const d = this.dimension;
    const n = this.size;
    const ids: number[] = [];
    const scores: number[] = [];
    for (let r = 0; r < n; r++) {
      let s = 0;
      const base = r * d;
      for (let j = 0; j < d; j++) s += this.rows[base + j]! * query[j]!;
      if (ids.length < k) {
        ids.push(r);
        scores.push(s);
      } else {
        let worst = 0;
        for (let i = 1; i < k; i++) if (scores[i]! < scores[worst]!) worst = i;
        if (s > scores[worst]!) {
          ids[worst] = r;
          scores[worst] = s;
        }
      }
    }
    return ids.map((id, i) => ({ id, s: scores[i]! })).sort((a, b) => b.s - a.s).map((x) => x.id);
  }
}

const key = (dimension: number, size: number) => `brute-force-${dimension}-${size}`;

export const bruteForce: SystemModule = {
  async create(dimension, size) {
    let matrix: Matrix | undefined;
    const system: BenchSystem = {
      name: 'brute force (Float32Array)',
      hybrid: false,
      async insert(data, searchable) {
        const rows = new Float32Array(data.vectors.length * dimension);
        data.vectors.forEach((v, i) => rows.set(v, i * dimension));
        matrix = new Matrix(dimension, rows);
        searchable();
        await putSnapshot(key(dimension, size), rows);
      },
      queryVector: async (query, k) => matrix!.topK(query.vector, k),
      async close() {
        matrix = undefined;
      },
    };
    return system;
  },

  async reopen(dimension, size) {
    const rows = await getSnapshot<Float32Array>(key(dimension, size));
    if (!rows) throw new Error('brute force: no snapshot in IndexedDB');
    const matrix = new Matrix(dimension, rows);
    const reopened: ReopenedSystem = {
      count: async () => matrix.size,
      queryVector: async (query, k) => matrix.topK(query.vector, k),
      close: async () => undefined,
    };
    return reopened;
  },
};
