import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { readByIds } from '../../src/store/read-by-ids.js';

// recall's read of its hits, straight from IndexedDB (real IndexedDB semantics: fake-indexeddb).
const opened: Dexie[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function store(): Promise<Dexie> {
  const db = new Dexie(`read-by-ids-${Math.random().toString(36).slice(2)}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  db.version(1).stores({ facts: 'id', turns: 'id' });
  await db.open();
  opened.push(db);
  await db.table('facts').bulkPut([
    { id: 'f1', text: 'one' },
    { id: 'f2', text: 'two', tags: ['a'], metadata: { nested: { deep: [1, 2] } } },
  ]);
  await db.table('turns').put({ id: 't1', text: 'turn' });
  return db;
}

describe('readByIds', () => {
  it('reads each store’s records in the order asked, whole, with undefined where no record has the id', async () => {
    const db = await store();
    const found = await readByIds<{ id: string; text: string }>(db, [
      { store: 'facts', ids: ['f2', 'missing', 'f1', 'f2'] },
      { store: 'turns', ids: ['t1'] },
    ]);
    expect(found).toEqual([
      [{ id: 'f2', text: 'two', tags: ['a'], metadata: { nested: { deep: [1, 2] } } }, undefined, { id: 'f1', text: 'one' }, { id: 'f2', text: 'two', tags: ['a'], metadata: { nested: { deep: [1, 2] } } }],
      [{ id: 't1', text: 'turn' }],
    ]);
    // Each its own copy, as Dexie's reads are: changing one changes nothing stored.
    found![0]![0]!.text = 'changed';
    expect(await db.table('facts').get('f2')).toMatchObject({ text: 'two' });
  });

  it('sees the writes that committed before it (a deleted record reads as undefined)', async () => {
    const db = await store();
    await db.table('facts').delete('f1');
    expect(await readByIds(db, [{ store: 'facts', ids: ['f1', 'f2'] }])).toEqual([[undefined, expect.objectContaining({ id: 'f2' })]]);
  });

  it('answers undefined, so the caller reads through Dexie, when the database is closed or a store is missing', async () => {
    const db = await store();
    expect(await readByIds(db, [{ store: 'notes', ids: ['x'] }])).toBeUndefined();
    // One store missing fails the whole read (the caller reads everything through Dexie).
    expect(await readByIds(db, [{ store: 'facts', ids: ['f1'] }, { store: 'notes', ids: ['x'] }])).toBeUndefined();
    db.close();
    expect(await readByIds(db, [{ store: 'facts', ids: ['f1'] }])).toBeUndefined();
    // Dexie, reading the same, says why.
    await expect(db.table('facts').bulkGet(['f1'])).rejects.toThrow(/closed/i);
  });

  it('reads nothing for no ids', async () => {
    const db = await store();
    expect(await readByIds(db, [])).toEqual([]);
    expect(await readByIds(db, [{ store: 'facts', ids: [] }])).toEqual([[]]);
  });
});
