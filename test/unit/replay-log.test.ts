import { describe, expect, it } from 'vitest';
import { writtenMemories, writtenSince } from '../../src/index-sync/replay-log.js';
import type { IndexLogRow } from '../../src/schema/records.js';
import { EngramDatabase } from '../../src/store/database.js';
import { freshIndexedDB } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/** Following the write log from a snapshot's mark to the store's (index-sync/replay-log.ts). */
const row = (previous: string, mark: string, ids: string[] | null, blocks?: string[], table?: IndexLogRow['table']): IndexLogRow => ({ previous, mark, ids, ...(blocks ? { blocks } : {}), ...(table ? { table } : {}) });
const idsOf = (result: ReturnType<typeof writtenSince>) => result?.ids;

describe('writtenSince', () => {
  it('collects the memories of every transaction from one mark to the other, and only those', () => {
    const log = [row('m0', 'm1', ['a'], ['blk-0']), row('m1', 'm2', ['b']), row('m1', 'm2', ['c'], ['blk-1']), row('m2', 'm3', ['a', 'd'])];
    expect(writtenSince(log, 'm1', 'm3')).toEqual({ ids: new Set(['b', 'c', 'a', 'd']), blocks: new Set(['blk-1']), tables: new Map() });
    expect(writtenSince(log, 'm0', 'm1')).toEqual({ ids: new Set(['a']), blocks: new Set(['blk-0']), tables: new Map() });
    expect(writtenSince(log, 'm3', 'm3')).toEqual({ ids: new Set(), blocks: new Set(), tables: new Map() });
    // Rows out of order are followed by their marks, not their order.
    expect(idsOf(writtenSince([...log].reverse(), 'm0', 'm3'))).toEqual(new Set(['a', 'b', 'c', 'd']));
  });

  it('gives up when a write is missing, cannot tell its memories, forks or loops', () => {
    const log = [row('m0', 'm1', ['a']), row('m2', 'm3', ['b'])];
    expect(writtenSince(log, 'm0', 'm3')).toBeNull();
    expect(writtenSince([row('m0', 'm1', null)], 'm0', 'm1')).toBeNull();
    expect(writtenSince([row('m0', 'm1', ['a']), row('m0', 'm9', ['b'])], 'm0', 'm1')).toBeNull();
    expect(writtenSince([row('m0', 'm1', ['a']), row('m1', 'm0', ['b'])], 'm0', 'm5')).toBeNull();
    expect(writtenSince([], 'm0', 'm1')).toBeNull();
  });

  it("tells each memory's table from the rows that name one; rows that disagree (or name none) leave it to every table", () => {
    const log = [row('m0', 'm1', ['a', 'b'], undefined, 'facts'), row('m0', 'm1', ['a', 'c'], ['blk']), row('m1', 'm2', ['b', 'd'], undefined, 'episodes'), row('m2', 'm3', ['e'], undefined, 'turns')];
    expect(writtenSince(log, 'm0', 'm3')?.tables).toEqual(new Map([['a', 'facts'], ['d', 'episodes'], ['e', 'turns']]));
  });
});

const memories = memoryFixture();

describe('writtenMemories', () => {
  it('reads each memory from the table the log names, and from every table when it names none or the wrong one', async () => {
    const db = freshIndexedDB();
    const name = `replay-${process.pid}-${Date.now()}`;
    const memory = await memories.open({ ...db, name });
    await memory.facts.add({ id: 'f', userId: 'u', text: 'the user keeps bees' });
    await memory.episodes.add({ id: 'e', userId: 'u', goal: 'move the hives', outcome: 'done' });
    await memory.turns.add({ id: 't', userId: 'u', speaker: 'Ana', text: 'the bees swarmed today' });
    await memory.close();
    const raw = new EngramDatabase(name, { indexedDB: db.indexedDB, IDBKeyRange: db.IDBKeyRange });
    try {
      const read = (tables: Map<string, 'facts' | 'episodes' | 'turns'>) =>
        raw.transaction('r', [raw.facts, raw.episodes, raw.turns, raw.vectorBlocks], () => writtenMemories(raw, ['f', 'e', 't', 'gone'], [], 128, tables));
      const texts = (memories: Awaited<ReturnType<typeof read>>) => memories.map((m) => [m.id, m.now?.doc.kind ?? null, m.now?.text ?? null]);
      const want = [['f', 'fact', 'the user keeps bees'], ['e', 'episode', expect.stringContaining('move the hives')], ['t', 'turn', 'the bees swarmed today'], ['gone', null, null]];
      expect(texts(await read(new Map([['f', 'facts'], ['e', 'episodes'], ['t', 'turns'], ['gone', 'facts']])))).toEqual(want);
      expect(texts(await read(new Map()))).toEqual(want);
      expect(texts(await read(new Map([['f', 'turns'], ['e', 'facts'], ['t', 'episodes']])))).toEqual(want);
    } finally {
      raw.close();
    }
  });
});
