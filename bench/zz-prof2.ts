import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { readImage } from '../src/store/durable/store-image.js';
import { EngramDatabase } from '../src/store/database.js';
import { readdirSync } from 'node:fs';
const dir = process.argv[2]!;
let t = performance.now();
const img = readImage(dir + '/image.v8')!;
console.log('read+deserialize', performance.now() - t, Object.fromEntries(Object.entries(img.stores).map(([k, v]) => [k, v.length])));
const f = new IDBFactory();
t = performance.now();
const db = new EngramDatabase('x', { indexedDB: f, IDBKeyRange }); await db.open(); db.close();
console.log('schema', performance.now() - t);
for (const table of Object.keys(img.stores)) {
  const idb: IDBDatabase = await new Promise((r) => { const q = f.open('x'); q.onsuccess = () => r(q.result); });
  t = performance.now();
  await new Promise<void>((r) => { const tx = idb.transaction(table, 'readwrite'); for (const row of img.stores[table]!) tx.objectStore(table).put(row); tx.oncomplete = () => r(); });
  console.log(table, performance.now() - t);
  idb.close();
}
