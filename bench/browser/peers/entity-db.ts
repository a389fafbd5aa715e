import { EntityDB } from '@babycommando/entity-db';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * @babycommando/entity-db: IndexedDB storage, one transaction per insert, and
 * a query that reads every vector back (`getAll`) and scores it in JS. It is
 * handed the vectors (`insertManualVectors` / `queryManualVectors`); its
 * transformers.js import is replaced in this page by a module that refuses
 * to load a model (see no-model-transformers.ts), so nothing is downloaded.
 */
const CONCURRENT = 1000;

async function count(): Promise<number> {
  // A read transaction on the store is ordered after every earlier write transaction has committed.
  return new Promise((resolve, reject) => {
    const request = indexedDB.open('EntityDB');
    request.onsuccess = () => {
      const db = request.result;
      const counting = db.transaction('vectors', 'readonly').objectStore('vectors').count();
      counting.onsuccess = () => {
        db.close();
        resolve(counting.result);
      };
      counting.onerror = () => reject(counting.error);
    };
    request.onerror = () => reject(request.error);
  });
}

async function query(db: EntityDB, vector: Float32Array, k: number): Promise<number[]> {
  const hits = await db.queryManualVectors(vector as unknown as number[], { limit: k });
  return hits.map((h) => h.idx as number);
}

export const entityDb: SystemModule = {
  async create() {
    const db = new EntityDB({ vectorPath: 'embedding' });
    const system: BenchSystem = {
      name: '@babycommando/entity-db',
      hybrid: false,
      async insert(data, searchable) {
        for (let start = 0; start < data.texts.length; start += CONCURRENT) {
          const writes: Promise<number>[] = [];
          for (let i = start; i < Math.min(start + CONCURRENT, data.texts.length); i++) {
            writes.push(db.insertManualVectors({ embedding: data.vectors[i], idx: i, title: data.texts[i] }));
          }
          await Promise.all(writes);
        }
        searchable();
        // insertManualVectors resolves on the request, not the commit: wait for the commits.
        await count();
      },
      queryVector: (q, k) => query(db, q.vector, k),
      close: async () => undefined,
    };
    return system;
  },

  async reopen() {
    const db = new EntityDB({ vectorPath: 'embedding' });
    const reopened: ReopenedSystem = {
      count,
      queryVector: (q, k) => query(db, q.vector, k),
      close: async () => undefined,
    };
    return reopened;
  },
};
