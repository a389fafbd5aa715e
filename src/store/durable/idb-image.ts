import { deserializeOwned } from './own-buffers.js';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { EngramDatabase } from '../database.js';
import { UNJOURNALED, type JournalOp } from './journal-middleware.js';
import { blobsToBytes, bytesToBlobs, IMAGE_FORMAT, writeImageAtomically, type StoreImage } from './store-image.js';
import { bulkStoreRows } from './bulk-load.js';
import { isPayloadFile } from '../page-file-store.js';

/*
 * Moving a durable store's rows between its files and its IndexedDB:
 * loading the image and replaying the journal at open, and writing a
 * compacted image from the database.
 */

/**
 * IndexedDB versions (Dexie's schema version × 10) whose upgrade only adds
 * object stores: an image written under the version before has rows for
 * stores that are unchanged, so it loads as it is (and the next compaction
 * writes it under the new version). v5 adds `turns`, v6 `indexLog`, v7 sync's `syncOutbox` and `syncVersions`.
 */
const ADDITIVE_VERSIONS: ReadonlySet<number> = new Set([50, 60, 70]);

export function loadsAsIs(stored: number, current: number): boolean {
  if (stored > current) return false;
  for (let v = stored + 10; v <= current; v += 10) if (!ADDITIVE_VERSIONS.has(v)) return false;
  return true;
}

/** Creates the schema with the database class itself (so it is the engine's, version for version); returns the IndexedDB version. */
export async function createSchema(indexedDB: IDBFactory, name: string): Promise<number> {
  const db = new EngramDatabase(name, { indexedDB, IDBKeyRange });
  await db.open();
  const version = db.backendDB().version;
  db.close();
  return version;
}

/**
 * Rows put per transaction while loading. fake-indexeddb keeps a
 * transaction's pending requests in an array it shifts from the front, which
 * costs time in proportion to the queue: one transaction of a whole store's
 * puts spends time quadratic in its rows on the shifting alone. Nobody sees the database until the load is
 * done (and a load that stops halfway leaves the files as they were), so it
 * needs no single transaction.
 */
const LOAD_BATCH = 1000;

/**
 * Stores the image's rows (bulk-load.ts, else recordStoreOf row by row), then
 * replays the journal's transactions in order, in batches of LOAD_BATCH
 * operations. Resolves the tables whose rows were stored one by one (none,
 * with the fake-indexeddb this code knows).
 */
export async function load(indexedDB: IDBFactory, name: string, image: StoreImage | null, records: JournalOp[][], options: { direct?: boolean } = {}): Promise<{ rowByRow: string[] }> {
  const idb = await request<IDBDatabase>(indexedDB.open(name));
  const rowByRow: string[] = [];
  try {
    const names = [...idb.objectStoreNames];
    let tx: IDBTransaction | undefined;
    let queued = 0;
    const pending: Promise<void>[] = [];
    const transaction = (): IDBTransaction => {
      if (tx && queued < LOAD_BATCH) return tx;
      const next = idb.transaction(names, 'readwrite');
      pending.push(
        new Promise<void>((resolvePromise, reject) => {
          next.oncomplete = () => resolvePromise();
          next.onabort = () => reject(next.error ?? new Error('replay aborted'));
        }),
      );
      queued = 0;
      tx = next;
      return next;
    };
    if (image) {
      for (const [table, rows] of Object.entries(image.stores)) {
        if (rows.length === 0) continue;
        // `direct: false` (tests) takes the public path that any IndexedDB has.
        const direct = options.direct === false ? undefined : recordStoreOf(idb, table);
        // Only the unjournaled tables' rows had their Blobs turned into bytes (writeImage): no other row is looked through.
        const value = UNJOURNALED.has(table) ? bytesToBlobs : identity;
        if (direct) {
          const values = value === identity ? rows : rows.map(value);
          // One pass per tree (bulk-load.ts); else row by row, as fake-indexeddb's put stores them.
          if (bulkStoreRows(direct, values)) continue;
          rowByRow.push(table);
          withoutStackTraces(() => {
            for (const row of values) direct.storeRecord({ key: undefined, value: row }, false);
          });
          continue;
        }
        rowByRow.push(table);
        for (const row of rows) {
          transaction().objectStore(table).put(value(row));
          queued++;
        }
      }
    }
    for (const ops of records) {
      for (const op of ops) {
        applyOp(transaction(), op);
        queued += op.type === 'deleteRange' ? 1 : (op.keys?.length ?? 1);
      }
    }
    // Readwrite transactions over the same stores run one after another, in the order they were created.
    await Promise.all(pending);
    return { rowByRow };
  } finally {
    idb.close();
  }
}

/** The part of fake-indexeddb's own object store (lib/ObjectStore.js, 6.x) the image load writes through. */
interface RecordStore {
  keyPath: unknown;
  storeRecord(record: { key: undefined; value: unknown }, noOverwrite: boolean): unknown;
}

/**
 * The image's rows are stored straight into fake-indexeddb's object store
 * when this version of it has the one this code knows: its trees built in
 * one pass (bulk-load.ts), or else row by row through the same
 * `storeRecord` its `put` runs (key from the key path, key generator,
 * indexes), without the structured clone, request and success event that
 * `put` adds per row, which were most of a large store's open. Safe
 * because the rows are this load's own
 * objects, deserialized for it and dropped after, and fake-indexeddb clones
 * on every read. Any other version (or store without a key path) gets undefined and the
 * public `put` path.
 */
function recordStoreOf(idb: IDBDatabase, table: string): RecordStore | undefined {
  const raw = (idb as unknown as { _rawDatabase?: { rawObjectStores?: Map<string, Partial<RecordStore>> } })._rawDatabase?.rawObjectStores?.get(table);
  if (!raw || typeof raw.storeRecord !== 'function' || raw.keyPath === null || raw.keyPath === undefined) return undefined;
  return raw as RecordStore;
}

/**
 * Runs `work` (synchronous) with no stack traces captured for errors made
 * meanwhile. fake-indexeddb skips a row in an index when the row's indexed
 * field is not a valid key (a null `validUntil`, `sessionId`, ...), by
 * throwing and catching a DOMException per row and index; capturing each
 * one's stack walks the stack once per row and index. (An error that escapes
 * `work`, which fails the open, keeps its message, not its stack.)
 */
function withoutStackTraces(work: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    work();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const identity = (row: unknown): unknown => row;

function applyOp(tx: IDBTransaction, op: JournalOp): void {
  const store = tx.objectStore(op.table);
  if (op.type === 'put') {
    const values = deserializeOwned<unknown[]>(op.values);
    values.forEach((value, i) => {
      const key = op.keys?.[i] as IDBValidKey | undefined;
      if (store.keyPath === null) store.put(value, key);
      else {
        if (key !== undefined && typeof store.keyPath === 'string' && value && typeof value === 'object') {
          (value as Record<string, unknown>)[store.keyPath] ??= key;
        }
        store.put(value);
      }
    });
  } else if (op.type === 'delete') {
    for (const key of op.keys) store.delete(key as IDBValidKey);
  } else {
    const { type, lower, upper, lowerOpen, upperOpen } = op.range;
    if (type === 3 /* any */) store.clear();
    else if (type === 4 /* never */) return;
    else if (lower === undefined && upper === undefined) store.clear();
    else if (lower === undefined) store.delete(IDBKeyRange.upperBound(upper, !!upperOpen));
    else if (upper === undefined) store.delete(IDBKeyRange.lowerBound(lower, !!lowerOpen));
    else store.delete(IDBKeyRange.bound(lower, upper, !!lowerOpen, !!upperOpen));
  }
}

/**
 * Writes a compacted image. The journaled stores are read in one readonly
 * transaction; IndexedDB runs a later readwrite transaction only after it,
 * and each earlier one has appended its record on completing, so when the
 * last read succeeds the rows are exactly the journal's state. The image is
 * written and `written` called (which empties the journal) right there,
 * synchronously, before any other transaction can commit. (Replaying a
 * journal over an image that already holds it gives the same state, so a
 * crash between the two is safe.) Resolves the image's size in bytes.
 */
export async function writeImage(
  indexedDB: IDBFactory,
  name: string,
  version: number,
  path: string,
  written: (stores: Record<string, unknown[]>) => void,
): Promise<number> {
  const idb = await request<IDBDatabase>(indexedDB.open(name));
  try {
    const names = [...idb.objectStoreNames];
    const cached = names.filter((n) => UNJOURNALED.has(n));
    const journaled = names.filter((n) => !UNJOURNALED.has(n));
    const stores: Record<string, unknown[]> = {};
    for (const table of cached) {
      const rows = await request<unknown[]>(idb.transaction(table, 'readonly').objectStore(table).getAll());
      stores[table] = await Promise.all(rows.map(blobsToBytes));
    }
    return await new Promise((resolvePromise, reject) => {
      const tx = idb.transaction(journaled, 'readonly');
      tx.onabort = () => reject(tx.error ?? new Error('compaction read aborted'));
      journaled.forEach((table, i) => {
        const req = tx.objectStore(table).getAll();
        req.onsuccess = () => {
          stores[table] = req.result as unknown[];
          if (i < journaled.length - 1) return;
          try {
            const bytes = writeImageAtomically(path, { format: IMAGE_FORMAT, version, stores });
            written(stores);
            resolvePromise(bytes);
          } catch (error) {
            reject(error as Error);
          }
        };
      });
    });
  } finally {
    idb.close();
  }
}

/** The page files that snapshot rows name. */
export function filesNamedBy(rows: unknown[] | undefined): string[] {
  return (rows ?? []).flatMap((row) => {
    const payload = (row as { payload?: unknown } | null)?.payload;
    return isPayloadFile(payload) ? [payload.file] : [];
  });
}

function request<T>(req: IDBRequest | IDBOpenDBRequest): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    req.onsuccess = () => resolvePromise(req.result as T);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}
