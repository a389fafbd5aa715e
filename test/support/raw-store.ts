/**
 * Every row of every object store of a database, read with the raw IndexedDB
 * API on a second connection: what "the store is exactly as it was" compares.
 */
export async function rawStore(indexedDB: IDBFactory, name: string): Promise<Record<string, unknown[]>> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  try {
    const names = [...db.objectStoreNames];
    const tx = db.transaction(names, 'readonly');
    const out: Record<string, unknown[]> = {};
    await Promise.all(
      names.map(
        (store) =>
          new Promise<void>((resolve, reject) => {
            const request = tx.objectStore(store).getAll();
            request.onsuccess = () => {
              out[store] = request.result;
              resolve();
            };
            request.onerror = () => reject(request.error);
          }),
      ),
    );
    return out;
  } finally {
    db.close();
  }
}
