import { F32Floor } from '../../floor/f32-floor.js';
import { getSnapshot, putSnapshot } from '../page/snapshot-store.js';
import type { ReopenedSystem, SystemModule } from './system.js';

/**
 * The complete vector floor of issue 45: the simplest system that answers
 * what engram answers to a vector query, memories rather than ids. A
 * WebAssembly SIMD f32 scan of one matrix on the page (bench/floor/), then
 * its k records read from IndexedDB in one read-only transaction. Its
 * records (the text and when it was written, keyed by position) and its
 * matrix (one value, bench/browser/page/snapshot-store.ts) are written with
 * the durability engram's transactions get, so a reload finds both.
 */
interface FloorRecord {
  text: string;
  createdAt: number;
}

const RECORDS = 'records';
/** Records per write transaction while building, as engram's addMany batches. */
const BATCH = 1_000;

const databaseName = (dimension: number, size: number) => `complete-floor-${dimension}-${size}`;
const matrixKey = (dimension: number, size: number) => `complete-floor-${dimension}-${size}`;

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
}

function openRecords(dimension: number, size: number): Promise<IDBDatabase> {
  const r = indexedDB.open(databaseName(dimension, size), 1);
  r.onupgradeneeded = () => r.result.createObjectStore(RECORDS);
  return request(r);
}

/** The scan's top k, then their records in one read-only transaction; the positions, checked to have a record each. */
async function query(floor: F32Floor, db: IDBDatabase, vector: Float32Array, k: number): Promise<number[]> {
  const rows = floor.topK(vector, k);
  const store = db.transaction(RECORDS, 'readonly').objectStore(RECORDS);
  const records = await Promise.all(rows.map((row) => request(store.get(row) as IDBRequest<FloorRecord | undefined>)));
  if (records.some((record) => !record)) throw new Error('complete floor: a scanned row has no record');
  return rows;
}

/** An open complete floor: its size, and the top k of a vector with their records read. */
export interface OpenCompleteFloor {
  readonly size: number;
  readonly bytes: number;
  query(vector: Float32Array, k: number): Promise<number[]>;
  close(): void;
}

/**
 * Writes the floor of (dimension, size) from `texts` and their `vectors`:
 * records in write transactions of BATCH, then the matrix as one value; open
 * and searchable (the vectors appended) as it goes.
 */
export async function buildCompleteFloor(dimension: number, size: number, texts: readonly string[], vectors: readonly Float32Array[]): Promise<OpenCompleteFloor> {
  const db = await openRecords(dimension, size);
  const floor = new F32Floor(dimension, size, 'wasm');
  for (let start = 0; start < texts.length; start += BATCH) {
    const end = Math.min(start + BATCH, texts.length);
    const tx = db.transaction(RECORDS, 'readwrite', { durability: 'default' });
    const store = tx.objectStore(RECORDS);
    for (let i = start; i < end; i++) store.put({ text: texts[i]!, createdAt: Date.now() } satisfies FloorRecord, i);
    await committed(tx);
    for (let i = start; i < end; i++) floor.add(vectors[i]!);
  }
  await putSnapshot(matrixKey(dimension, size), floor.rows());
  return opened(floor, db);
}

/** What a page load does: the saved matrix, and the records' database. */
export async function openCompleteFloor(dimension: number, size: number): Promise<OpenCompleteFloor> {
  const [db, rows] = await Promise.all([openRecords(dimension, size), getSnapshot<Float32Array>(matrixKey(dimension, size))]);
  if (!rows) throw new Error('complete floor: no saved matrix in IndexedDB');
  const floor = new F32Floor(dimension, size, 'wasm');
  floor.restore(rows);
  return opened(floor, db);
}

function opened(floor: F32Floor, db: IDBDatabase): OpenCompleteFloor {
  return {
    get size() {
      return floor.size;
    },
    get bytes() {
      return floor.bytes;
    },
    query: (vector, k) => query(floor, db, vector, k),
    close: () => db.close(),
  };
}

export const completeVectorFloor: SystemModule = {
  async create(dimension, size) {
    let floor: OpenCompleteFloor | undefined;
    return {
      name: 'complete floor: WebAssembly SIMD f32 scan + k records from IndexedDB',
      hybrid: false,
      async insert(data, searchable) {
        floor = await buildCompleteFloor(dimension, size, data.texts, data.vectors);
        searchable();
      },
      queryVector: (q, k) => floor!.query(q.vector, k),
      wasmBytes: async () => floor!.bytes,
      async close() {
        floor?.close();
        floor = undefined;
      },
    };
  },

  async reopen(dimension, size) {
    const floor = await openCompleteFloor(dimension, size);
    const reopened: ReopenedSystem = {
      count: async () => floor.size,
      queryVector: (q, k) => floor.query(q.vector, k),
      close: async () => floor.close(),
    };
    return reopened;
  },
};
