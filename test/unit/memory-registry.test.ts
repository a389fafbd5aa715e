import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { defineMemoryKind, type StoredMemory } from '../../src/memories/memory-kind.js';
import { EPISODES, FACTS, MEMORY_KINDS, memoryKindIn, memoryKindOf, memoryKinds, memoryKindsSearchedAs, registerMemoryKind, TURNS } from '../../src/memories/registry.js';
import { EngramDatabase } from '../../src/store/database.js';

/** The rules of the registry of memory kinds (src/memories/registry.ts). */
const kindNamed = (type: string, table: string, indexes = 'id, [userId+createdAt]') =>
  defineMemoryKind<StoredMemory>({ type, table, label: `a ${type}`, schema: undefined as never, indexes, indexedText: (r) => r.text, indexDoc: () => null });

const specsOf = (indexes: string) => indexes.split(',').map((s) => s.trim()).sort();

describe('the memory kinds registry', () => {
  it("holds each shipped kind's indexes equal to the published database schema of its table", async () => {
    const db = new EngramDatabase(`registry-${process.pid}`, { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    try {
      for (const kind of MEMORY_KINDS) {
        const schema = db.table(kind.table).schema;
        expect([kind.table, [schema.primKey.src, ...schema.indexes.map((index) => index.src)].sort()]).toEqual([kind.table, specsOf(kind.indexes)]);
      }
    } finally {
      db.close();
    }
  });

  it('finds a kind by table, by type and by the index kind it is searched as', () => {
    expect(memoryKinds().map((kind) => kind.table)).toEqual(['episodes', 'facts', 'turns']);
    expect([memoryKindIn('episodes'), memoryKindOf('turn'), memoryKindIn('tasks'), memoryKindOf('task')]).toEqual([EPISODES, TURNS, undefined, undefined]);
    expect(memoryKindsSearchedAs('fact')).toEqual([FACTS]);
  });

  it('refuses a kind whose type or table is taken or reserved, or whose table is not keyed by id', () => {
    const refusal = (kind: ReturnType<typeof kindNamed>) => {
      try {
        registerMemoryKind(kind)();
        return 'registered';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal(kindNamed('fact', 'notes'))).toContain('the type "fact" is taken');
    expect(refusal(kindNamed('vector', 'notes'))).toContain('the type "vector" is taken');
    expect(refusal(kindNamed('note', 'tasks'))).toContain('the table "tasks" is taken');
    expect(refusal(kindNamed('note', 'notes', '[userId+createdAt], id'))).toContain('keyed by `id`');
    expect(refusal(kindNamed('Note', 'notes'))).toContain('identifiers');
    expect(memoryKinds()).toEqual([...MEMORY_KINDS]);
  });

  it('adds a kind after the shipped ones until the call it returns removes it', () => {
    const notes = kindNamed('note', 'notes');
    const unregister = registerMemoryKind(notes);
    expect([memoryKinds().at(-1), memoryKindIn('notes'), memoryKindOf('note')]).toEqual([notes, notes, notes]);
    unregister();
    expect([memoryKinds(), memoryKindIn('notes')]).toEqual([[...MEMORY_KINDS], undefined]);
  });
});
