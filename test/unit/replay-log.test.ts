import { describe, expect, it } from 'vitest';
import { writtenSince } from '../../src/search/persistence/replay-log.js';
import type { IndexLogRow } from '../../src/schema/records.js';

/** Following the write log from a snapshot's mark to the store's (search/persistence/replay-log.ts). */
const row = (previous: string, mark: string, ids: string[] | null, blocks?: string[]): IndexLogRow => ({ previous, mark, ids, ...(blocks ? { blocks } : {}) });
const idsOf = (result: ReturnType<typeof writtenSince>) => result?.ids;

describe('writtenSince', () => {
  it('collects the memories of every transaction from one mark to the other, and only those', () => {
    const log = [row('m0', 'm1', ['a'], ['blk-0']), row('m1', 'm2', ['b']), row('m1', 'm2', ['c'], ['blk-1']), row('m2', 'm3', ['a', 'd'])];
    expect(writtenSince(log, 'm1', 'm3')).toEqual({ ids: new Set(['b', 'c', 'a', 'd']), blocks: new Set(['blk-1']) });
    expect(writtenSince(log, 'm0', 'm1')).toEqual({ ids: new Set(['a']), blocks: new Set(['blk-0']) });
    expect(writtenSince(log, 'm3', 'm3')).toEqual({ ids: new Set(), blocks: new Set() });
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
});
