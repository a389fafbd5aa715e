import { describe, expect, it } from 'vitest';
import { PAGE_SIZE, SnapshotPages } from '../../src/index-sync/snapshot-pages.js';

/**
 * The tracker of which snapshot page holds each memory (src/index-sync/snapshot-pages.ts).
 * After an open it builds its maps when first needed: the changes reported before then
 * must leave it exactly where reporting them to built maps would have.
 */

const restoredPages = () => [
  { page: 0, ids: Array.from({ length: PAGE_SIZE }, (_, i) => `a${i}`) },
  { page: 1, ids: ['b0', 'b1', 'b2'] },
  { page: 3, ids: ['d0'] },
];

type Change = ['changed', string, boolean] | ['removed', string];
const changes: Change[] = [
  ['changed', 'a5', true],
  ['changed', 'new1', false],
  ['removed', 'b1'],
  ['removed', 'unknown'],
  ['changed', 'b2', true],
  ['removed', 'd0'],
  ['changed', 'new2', false],
  ['removed', 'new1'],
];

function apply(pages: SnapshotPages, list: Change[]): void {
  for (const change of list) {
    if (change[0] === 'changed') pages.changed(change[1], change[2]);
    else pages.removed(change[1]);
  }
}

function sorted(pages: SnapshotPages) {
  return pages
    .takeDirty()
    .map((p) => ({ ...p, ids: [...p.ids].sort() }))
    .sort((a, b) => a.page - b.page);
}

describe('SnapshotPages after restore', () => {
  it('does not walk the restored pages until a change or a save needs them', () => {
    let read = 0;
    const counted = restoredPages().map(({ page, ids }) => ({
      page,
      ids: new Proxy(ids, {
        get(target, key, receiver) {
          if (key === Symbol.iterator || (typeof key === 'string' && /^\d+$/.test(key))) read++;
          return Reflect.get(target, key, receiver);
        },
      }),
    }));
    const pages = new SnapshotPages();
    pages.restore(counted, 'layout-1');
    pages.changed('a1', true);
    pages.changed('fresh', false);
    expect(pages.hasChanges).toBe(true);
    expect(read).toBe(0);
    expect(sorted(pages).map((p) => p.page)).toEqual([0, 3]);
    expect(read).toBeGreaterThan(0);
    expect(pages.layout).toBe('layout-1');
  });

  it('ends where the same changes applied to built maps end', () => {
    const eager = new SnapshotPages();
    eager.restore(restoredPages(), 'L');
    expect(eager.livePages()).toEqual([0, 1, 3]);
    apply(eager, changes);
    const lazy = new SnapshotPages();
    lazy.restore(restoredPages(), 'L');
    apply(lazy, changes);
    expect(lazy.hasChanges).toBe(true);
    const expected = sorted(eager);
    expect(sorted(lazy)).toEqual(expected);
    // The tail page 3 took new1 and new2 (d0 and new1 left it), page 1 lost b1, page 0 only had a document change.
    expect(expected).toEqual([
      { page: 0, ids: [...restoredPages()[0]!.ids].sort(), fieldsOnly: true },
      { page: 1, ids: ['b0', 'b2'], fieldsOnly: false },
      { page: 3, ids: ['new2'], fieldsOnly: false },
    ]);
  });

  it('has no changes when only removals of memories it does not hold were reported', () => {
    const pages = new SnapshotPages();
    pages.restore(restoredPages(), 'L');
    expect(pages.hasChanges).toBe(false);
    pages.removed('not-there');
    expect(pages.hasChanges).toBe(false);
    pages.removed('b0');
    expect(pages.hasChanges).toBe(true);
    expect(sorted(pages)).toEqual([{ page: 1, ids: ['b1', 'b2'], fieldsOnly: false }]);
  });

  it('marks every restored page dirty when the index is cleared before its maps were built', () => {
    const pages = new SnapshotPages();
    pages.restore(restoredPages(), 'L');
    pages.cleared();
    expect(pages.layout).not.toBe('L');
    expect(sorted(pages).map((p) => [p.page, p.ids.length, p.fieldsOnly])).toEqual([
      [0, 0, false],
      [1, 0, false],
      [3, 0, false],
    ]);
  });

  it('builds its maps once more changes wait than a page holds, so recalls that never pause do not grow the queue', () => {
    let read = 0;
    const counted = restoredPages().map(({ page, ids }) => ({
      page,
      ids: new Proxy(ids, {
        get(target, key, receiver) {
          if (key === Symbol.iterator || (typeof key === 'string' && /^\d+$/.test(key))) read++;
          return Reflect.get(target, key, receiver);
        },
      }),
    }));
    const pages = new SnapshotPages();
    pages.restore(counted, 'L');
    for (let i = 0; i < PAGE_SIZE; i++) pages.changed(`a${i % 10}`, true);
    expect(read).toBe(0);
    pages.changed('a11', true);
    expect(read).toBeGreaterThan(0);
    // Applied in order, as if the maps had been there: page 0, documents only.
    expect(sorted(pages).map((p) => [p.page, p.fieldsOnly])).toEqual([[0, true]]);
  });
});
