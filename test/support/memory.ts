import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, loadTransformersEmbedder, type Embedder, type Memory, type MemoryOptions } from '../../src/index.js';

/** The offline model shipped beside the project (never the hub). */
export const MODEL_PATH = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
export const MODEL = 'minishlab/potion-base-4M-int8';

let embedder: Promise<Embedder> | undefined;

/**
 * The real offline model, loaded once per test file. A text it has embedded
 * in this file is not embedded again: the model gives a text the same vector
 * every time, and some files store the same thousands of texts test after
 * test (each caller gets its own copy of the vector).
 */
export function realEmbedder(): Promise<Embedder> {
  embedder ??= loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH }).then(remembering);
  return embedder;
}

function remembering(model: Embedder): Embedder {
  const known = new Map<string, Float32Array>();
  return {
    id: model.id,
    dimension: model.dimension,
    async embed(texts) {
      const missing = [...new Set(texts.filter((text) => !known.has(text)))];
      if (missing.length > 0) {
        const vectors = await model.embed(missing);
        missing.forEach((text, i) => known.set(text, vectors[i]!));
      }
      return texts.map((text) => known.get(text)!.slice());
    },
  };
}

let counter = 0;

/** A fresh, isolated IndexedDB (fake-indexeddb has real IndexedDB semantics). */
export function freshIndexedDB(): { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange } {
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}

/** Opens a memory on the real model with its own database unless one is given. */
export async function openMemory(options: Partial<MemoryOptions> = {}): Promise<Memory> {
  return createMemory({
    name: `test-${process.pid}-${++counter}`,
    ...freshIndexedDB(),
    embedder: await realEmbedder(),
    ...options,
  });
}

/** Everything in the store, in a comparable form (the export minus its timestamp line and checksum). */
export async function snapshot(memory: Memory): Promise<string[]> {
  const text = await (await memory.export()).text();
  return text
    .trim()
    .split('\n')
    .slice(1, -1)
    .sort();
}
