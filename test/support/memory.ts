import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createMemory, loadTransformersEmbedder, type Embedder, type Memory, type MemoryOptions } from '../../src/index.js';

/** The offline model shipped beside the project (never the hub). */
export const MODEL_PATH = fileURLToPath(new URL('../../../shared/models/', import.meta.url));
export const MODEL = 'minishlab/potion-base-4M-int8';

let embedder: Promise<Embedder> | undefined;

/** The real offline model, loaded once per test file. */
export function realEmbedder(): Promise<Embedder> {
  embedder ??= loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH });
  return embedder;
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
