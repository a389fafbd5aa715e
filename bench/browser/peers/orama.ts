import { create, insertMultiple, load, save, search, MODE_HYBRID_SEARCH, MODE_VECTOR_SEARCH, type AnyOrama } from '@orama/orama';
import { getSnapshot, putSnapshot } from '../page/snapshot-store.js';
import type { BenchSystem, ReopenedSystem, SystemModule } from './system.js';

/**
 * @orama/orama: in-memory full-text + vector + hybrid search on the main
 * thread. It has no storage of its own: durability is its `save()` snapshot
 * written to IndexedDB, and a reload is `load()` of that snapshot. The
 * snapshot is stored as a structured-cloned object, not as JSON (what
 * @orama/plugin-data-persistence writes): at 100k × 128-d the JSON string
 * exceeds V8's maximum string length.
 */
const schemaOf = (dimension: number) => ({ text: 'string', embedding: `vector[${dimension}]` }) as const;
const key = (dimension: number, size: number) => `orama-${dimension}-${size}`;
/** Orama's threshold defaults to 0.8; random unit vectors sit near 0, so take the top k whatever their cosine. */
const ANY_SIMILARITY = 0.0000001;

async function vectorSearch(db: AnyOrama, query: { vector: Float32Array; text: string }, k: number, hybrid: boolean): Promise<number[]> {
  const result = await search(db, {
    mode: hybrid ? MODE_HYBRID_SEARCH : MODE_VECTOR_SEARCH,
    ...(hybrid ? { term: query.text } : {}),
    vector: { value: Array.from(query.vector), property: 'embedding' },
    similarity: ANY_SIMILARITY,
    limit: k,
    includeVectors: false,
  } as never);
  return result.hits.map((h) => Number(h.id));
}

export const orama: SystemModule = {
  async create(dimension, size) {
    let db: AnyOrama | undefined;
    const system: BenchSystem = {
      name: '@orama/orama',
      hybrid: true,
      async insert(data, searchable) {
        db = create({ schema: schemaOf(dimension) });
        // Orama validates vectors with Array.isArray: Float32Arrays must become plain arrays.
        const docs = data.texts.map((text, i) => ({ id: String(i), text, embedding: Array.from(data.vectors[i]!) }));
        await insertMultiple(db, docs as never, 1000);
        searchable();
        await putSnapshot(key(dimension, size), save(db));
      },
      queryVector: (query, k) => vectorSearch(db!, query, k, false),
      queryHybrid: (query, k) => vectorSearch(db!, query, k, true),
      async close() {
        db = undefined;
      },
    };
    return system;
  },

  async reopen(dimension, size) {
    const snapshot = await getSnapshot<ReturnType<typeof save>>(key(dimension, size));
    if (!snapshot) throw new Error('orama: no snapshot in IndexedDB');
    const db = create({ schema: schemaOf(dimension) });
    load(db, snapshot);
    const reopened: ReopenedSystem = {
      count: async () => Object.keys((save(db) as { docs: { docs: Record<string, unknown> } }).docs.docs).length,
      queryVector: (query, k) => vectorSearch(db, query, k, false),
      close: async () => undefined,
    };
    return reopened;
  },
};
