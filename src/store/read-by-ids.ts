import type Dexie from 'dexie';

/** Records wanted from one object store, by primary key. */
export interface IdsOfStore {
  store: string;
  ids: readonly string[];
}

/**
 * Reads records by primary key straight from IndexedDB, one read-only
 * transaction per store, each answering as its last read does (not at its
 * commit): `recall`'s read of its hits. Dexie's `bulkGet` for the same reads
 * adds its promise zones and middleware stack, per-call work on every
 * recall. Nothing is bypassed that a read
 * needs: engram's DBCore middlewares act on writes only (write-mark.ts,
 * change-feed.ts, one-writer.ts, the durable store's journal) and no table
 * maps its records on reading.
 *
 * Resolves per store, in `wanted`'s order, each record or undefined where
 * none has that key; resolves undefined when the reads could not be made or
 * one failed (a closing or closed database, a store another version of the
 * schema lacks): the caller then reads through Dexie, which says what went
 * wrong as engram's errors do.
 */
export function readByIds<T>(db: Dexie, wanted: readonly IdsOfStore[]): Promise<(T | undefined)[][] | undefined> {
  let database: IDBDatabase | null;
  try {
    database = db.isOpen() ? db.backendDB() : null;
  } catch {
    database = null;
  }
  if (!database) return Promise.resolve(undefined);
  const opened = database;
  return Promise.all(wanted.map(({ store, ids }) => readStore<T>(opened, store, ids))).then(
    (found) => found,
    () => undefined,
  );
}

/** One store's records in one read-only transaction; rejects on the first failure. */
function readStore<T>(database: IDBDatabase, store: string, ids: readonly string[]): Promise<(T | undefined)[]> {
  return new Promise((resolve, reject) => {
    const out: (T | undefined)[] = new Array(ids.length);
    if (ids.length === 0) return resolve(out);
    let transaction: IDBTransaction;
    try {
      transaction = database.transaction(store, 'readonly');
    } catch (error) {
      return reject(error);
    }
    // A transaction aborted before every read answered (the database closing) must settle the promise too.
    transaction.onabort = () => reject(transaction.error ?? new DOMException('aborted', 'AbortError'));
    let left = ids.length;
    const objectStore = transaction.objectStore(store);
    ids.forEach((id, i) => {
      const request = objectStore.get(id);
      request.onsuccess = () => {
        out[i] = request.result as T | undefined;
        if (--left === 0) resolve(out);
      };
      request.onerror = (event) => {
        // Handled here: the failure goes to the caller, not to the transaction's and the database's error handlers.
        event.preventDefault();
        event.stopPropagation();
        reject(request.error);
      };
    });
  });
}
