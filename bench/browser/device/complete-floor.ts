import { loadTransformersEmbedder, type Embedder } from 'engram';
import { F32Floor } from '../../floor/f32-floor.js';

/**
 * The complete floor of issue 45: the simplest system that answers what
 * engram answers, from the same store, in a Web Worker as engram is.
 * - recall(text): the query embedded with the same model (engram's bundled
 *   static model, `loadTransformersEmbedder()`), a WebAssembly SIMD f32 scan
 *   of every vector (bench/floor/f32-floor.ts), then its k records read from
 *   IndexedDB in one read-only transaction.
 * - Writes: the texts embedded, their records (text and vector) put in one
 *   read-write transaction, then their vectors appended to the matrix.
 * - Durable as engram is: every record is in IndexedDB when its write
 *   resolves; the matrix is saved as one value (at build and by `close()`),
 *   and an open appends the records written after the saved matrix.
 * No ranking beyond the cosine, no keyword index, no dedup: a floor.
 */
interface FloorRecord {
  text: string;
  createdAt: number;
  vector: Float32Array;
}
interface SavedMatrix {
  count: number;
  rows: Float32Array;
}

const RECORDS = 'records';
const MATRIX = 'matrix';
/**
 * Room for the writes made after the saved matrix (a sitting writes about a
 * hundred between clean closes). Kept small because the worker's memory
 * figure counts the matrix as allocated, reserve included, as it counts
 * engram's spare rows; a write past it throws (F32Floor.add), never silently.
 */
const HEADROOM = 2_000;

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

function openDatabase(name: string): Promise<IDBDatabase> {
  const r = indexedDB.open(name, 1);
  r.onupgradeneeded = () => {
    r.result.createObjectStore(RECORDS);
    r.result.createObjectStore(MATRIX);
  };
  return request(r);
}

export class CompleteFloor {
  private constructor(
    private readonly db: IDBDatabase,
    private readonly embedder: Embedder,
    private readonly floor: F32Floor,
    private saved: number,
    readonly replayed: number,
  ) {}

  /** Builds the store from texts (unthrottled, before anything is measured): records in batches, then the matrix. */
  static async build(name: string, texts: string[], batch = 1000): Promise<void> {
    const [db, embedder] = await Promise.all([openDatabase(name), loadTransformersEmbedder()]);
    const floor = new F32Floor(embedder.dimension, texts.length, 'wasm');
    for (let start = 0; start < texts.length; start += batch) {
      const slice = texts.slice(start, start + batch);
      const vectors = await embedder.embed(slice);
      const tx = db.transaction(RECORDS, 'readwrite', { durability: 'default' });
      const store = tx.objectStore(RECORDS);
      slice.forEach((text, i) => store.put({ text, createdAt: Date.now(), vector: vectors[i]! } satisfies FloorRecord, start + i));
      await committed(tx);
      for (const v of vectors) floor.add(v);
    }
    await CompleteFloor.saveMatrix(db, floor);
    db.close();
  }

  /** What a page load does: the model and the saved matrix, then the records written after it. */
  static async open(name: string): Promise<CompleteFloor> {
    const db = await openDatabase(name);
    const [embedder, saved] = await Promise.all([loadTransformersEmbedder(), request<SavedMatrix | undefined>(db.transaction(MATRIX, 'readonly').objectStore(MATRIX).get(MATRIX))]);
    if (!saved) throw new Error(`the floor "${name}" has no saved matrix`);
    const floor = new F32Floor(embedder.dimension, saved.count + HEADROOM, 'wasm');
    floor.restore(saved.rows);
    const later = await request(db.transaction(RECORDS, 'readonly').objectStore(RECORDS).getAll(IDBKeyRange.lowerBound(saved.count)));
    for (const record of later as FloorRecord[]) floor.add(record.vector);
    return new CompleteFloor(db, embedder, floor, saved.count, later.length);
  }

  private static async saveMatrix(db: IDBDatabase, floor: F32Floor): Promise<void> {
    const tx = db.transaction(MATRIX, 'readwrite', { durability: 'default' });
    // A copy: the rows are a view of the WebAssembly memory, and cloning a view clones its whole buffer.
    tx.objectStore(MATRIX).put({ count: floor.size, rows: floor.rows().slice() } satisfies SavedMatrix, MATRIX);
    await committed(tx);
  }

  async recall(text: string, k = 10): Promise<{ text: string; createdAt: number }[]> {
    const [query] = await this.embedder.embed([text]);
    const rows = this.floor.topK(query!, k);
    const store = this.db.transaction(RECORDS, 'readonly').objectStore(RECORDS);
    const records = (await Promise.all(rows.map((row) => request(store.get(row))))) as FloorRecord[];
    return records.map(({ text, createdAt }) => ({ text, createdAt }));
  }

  /** Texts stored, one read-write transaction, then searchable: a fact (one text) or an observed exchange (two). */
  async write(texts: string[]): Promise<void> {
    const vectors = await this.embedder.embed(texts);
    const first = this.floor.size;
    const tx = this.db.transaction(RECORDS, 'readwrite', { durability: 'default' });
    const store = tx.objectStore(RECORDS);
    texts.forEach((text, i) => store.put({ text, createdAt: Date.now(), vector: vectors[i]! } satisfies FloorRecord, first + i));
    await committed(tx);
    for (const v of vectors) this.floor.add(v);
  }

  info(): { indexed: number; vectorBytes: number; replayed: number } {
    return { indexed: this.floor.size, vectorBytes: this.floor.bytes, replayed: this.replayed };
  }

  /** Saves the matrix when it holds records the saved one lacks (the floor's snapshot save), then closes. */
  async close(): Promise<void> {
    if (this.floor.size > this.saved) {
      await CompleteFloor.saveMatrix(this.db, this.floor);
      this.saved = this.floor.size;
    }
    this.db.close();
  }
}
