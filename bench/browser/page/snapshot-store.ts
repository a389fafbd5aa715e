/**
 * A minimal IndexedDB key/value store for peers that only persist by
 * snapshot (Orama's `save()`, Voy's `serialize()`, brute force's matrix):
 * this is what an app using them would have to write to survive a reload.
 * Written with the durability engram's own transactions get (Dexie passes
 * none: Chromium's default), so every system is durable in the same way.
 */
const DB_NAME = 'bench-snapshots';
const STORE = 'snapshots';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Resolves once the write transaction has committed (the data survives a reload). */
export async function putSnapshot(key: string, value: unknown): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(STORE, 'readwrite', { durability: 'default' });
      tx.objectStore(STORE).put(value, key);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export async function getSnapshot<T>(key: string): Promise<T | undefined> {
  const db = await open();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const request = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
      request.onsuccess = () => resolve(request.result as T | undefined);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

/** Deletes every IndexedDB database of this origin, so each run starts empty. */
export async function deleteAllDatabases(): Promise<void> {
  for (const { name } of await indexedDB.databases()) {
    if (!name) continue;
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
      request.onblocked = () => resolve();
    });
  }
}
