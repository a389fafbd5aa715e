import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeDocs, readColumns, type DocColumns } from '../../src/search/doc-columns.js';
import { compileFilter, type DocFilter } from '../../src/search/filters.js';
import type { IndexDoc } from '../../src/search/index-doc.js';

/**
 * The index snapshot stores documents column-wise, and the index keeps a
 * loaded block so until a document is read (src/search/doc-columns.ts):
 * every document read back must equal the original, down to key order, own
 * `__proto__` keys, undefined values, -0 and NaN, so filters see exactly
 * what they saw before the save.
 */

/** Every document of the columns, read back through a reader (after a structured clone, as IndexedDB gives them). */
function decodeDocs(columns: DocColumns): IndexDoc[] | null {
  const reader = readColumns(structuredClone(columns));
  return reader && reader.ids.map((_, row) => reader.doc(row));
}

/** Deep equality that also tells -0 from 0, NaN from undefined, and compares key order. */
function expectIdentical(got: unknown, want: unknown): void {
  if (typeof want !== 'object' || want === null) {
    expect(Object.is(got, want)).toBe(true);
    return;
  }
  expect(typeof got).toBe('object');
  expect(Array.isArray(got)).toBe(Array.isArray(want));
  expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(want));
  expect(Object.keys(got as object)).toEqual(Object.keys(want));
  for (const key of Object.keys(want)) {
    expectIdentical((got as Record<string, unknown>)[key], (want as Record<string, unknown>)[key]);
  }
}

const proto = JSON.parse('{"__proto__": "not a prototype", "x": 1}') as Record<string, unknown>;

const DOCS: IndexDoc[] = [
  {
    id: 'f1',
    userId: 'ana',
    kind: 'fact',
    createdAt: 1_700_000_000_000,
    touchedAt: 1_700_000_000_123.5,
    tags: ['food', 'japan'],
    importance: 0.7,
    pinned: true,
    archived: false,
    times: [{ text: 'yesterday', grain: 'day', offset: -1 }, { text: 'next month', grain: 'month', offset: 1 }],
    fields: { category: 'preference', source: 'manual', sessionId: undefined, nested: { a: [1, 2] } },
  },
  {
    id: 'e1',
    userId: 'ben',
    kind: 'episode',
    createdAt: -0,
    touchedAt: Number.MAX_SAFE_INTEGER,
    tags: [],
    importance: Number.NaN,
    pinned: false,
    archived: true,
    times: [],
    fields: { participants: ['ana', 'ben'], outcomeStatus: 'success', quality: -0, state: 'archived', startedAt: null, ok: true, no: false, '': 'empty key' },
  },
  { id: 't1', userId: 'ana', kind: 'task', createdAt: 0, touchedAt: 0, tags: ['food'], importance: 0, pinned: false, archived: false, times: [], fields: {} },
  { id: 'p', userId: '', kind: 'fact', createdAt: 1, touchedAt: 2, tags: [''], importance: 1, pinned: true, archived: true, times: [{ text: 'two years ago', grain: 'year', offset: -2 }], fields: { ...proto } },
];

describe('document columns (index snapshot)', () => {
  it('round-trips documents exactly, key order and odd values included', () => {
    const decoded = decodeDocs(encodeDocs(DOCS))!;
    expect(decoded).not.toBeNull();
    expect(decoded.length).toBe(DOCS.length);
    decoded.forEach((doc, i) => expectIdentical(doc, DOCS[i]));
    expect(Object.prototype.hasOwnProperty.call(decoded[3]!.fields, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(decoded[3]!.fields)).toBe(Object.prototype);
  });

  it('filters match the decoded documents exactly as the originals', () => {
    const decoded = decodeDocs(encodeDocs(DOCS))!;
    const filters: DocFilter[] = [
      {},
      { includeArchived: true },
      { tags: ['food'] },
      { types: ['episode'], includeArchived: true },
      { since: 0, until: 1_700_000_000_000 },
      { filter: { participants: 'ana' }, includeArchived: true },
      { filter: { sessionId: null } },
      { filter: { category: ['preference', 'other'] } },
      { filter: { __proto__: 'not a prototype' } as never, includeArchived: true },
    ];
    for (const options of filters) {
      const test = compileFilter(options);
      expect(decoded.map(test)).toEqual(DOCS.map(test));
    }
  });

  it('round-trips arbitrary documents (property)', () => {
    const value = fc.oneof(
      fc.string(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2, noNullPrototype: true }),
    );
    const doc = fc.record(
      {
        id: fc.string(),
        userId: fc.constantFrom('a', 'b', ''),
        kind: fc.constantFrom('fact' as const, 'episode' as const, 'task' as const),
        createdAt: fc.double(),
        touchedAt: fc.double(),
        tags: fc.array(fc.constantFrom('x', 'y', 'z', 'food'), { maxLength: 4 }),
        importance: fc.double(),
        pinned: fc.boolean(),
        archived: fc.boolean(),
        times: fc.array(fc.record({ text: fc.string({ minLength: 1, maxLength: 100 }), grain: fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const), offset: fc.integer({ min: -100_000, max: 100_000 }) }, { noNullPrototype: true }), { maxLength: 3 }),
        fields: fc.dictionary(fc.constantFrom('category', 'source', 'sessionId', 'participants', 'meta', 'k'), value, { maxKeys: 4, noNullPrototype: true }),
      },
      { noNullPrototype: true },
    );
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 30 }), (docs) => {
        const decoded = decodeDocs(encodeDocs(docs))!;
        expect(decoded.length).toBe(docs.length);
        decoded.forEach((d, i) => expectIdentical(d, docs[i]));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('refuses columns that do not fit together (a damaged snapshot is ignored, not half-read)', () => {
    const damaged = [
      (c: ReturnType<typeof encodeDocs>) => (c.ids = c.ids.slice(1)),
      (c: ReturnType<typeof encodeDocs>) => (c.createdAt = c.createdAt.subarray(1)),
      (c: ReturnType<typeof encodeDocs>) => (c.tags = c.tags.subarray(1)),
      (c: ReturnType<typeof encodeDocs>) => (c.strings = c.strings.slice(0, 1)),
      (c: ReturnType<typeof encodeDocs>) => (c.value = c.value.subarray(1)),
      (c: ReturnType<typeof encodeDocs>) => (c.valueKind = Uint8Array.from(c.valueKind, () => 9)),
      (c: ReturnType<typeof encodeDocs>) => (c.value = Float64Array.from(c.value, (v, j) => (c.valueKind[j] === 0 ? v + 0.5 : v))),
      (c: ReturnType<typeof encodeDocs>) => (c.kind = Uint32Array.from(c.kind, () => 0)),
      (c: ReturnType<typeof encodeDocs>) => (c.userId = Uint32Array.from(c.userId, () => 1e6)),
      (c: ReturnType<typeof encodeDocs>) => (c.shape = Uint32Array.from(c.shape, () => 99)),
      (c: ReturnType<typeof encodeDocs>) => (c.others = []),
      // Times: a flagged row without them, times on a row not flagged, out of order, or malformed.
      (c: ReturnType<typeof encodeDocs>) => ((c.timedRows = c.timedRows.subarray(1)), (c.times = c.times.slice(1))),
      (c: ReturnType<typeof encodeDocs>) => (c.flags = Uint8Array.from(c.flags, (f) => f & ~4)),
      (c: ReturnType<typeof encodeDocs>) => ((c.timedRows = Uint32Array.from(c.timedRows).reverse()), c.times.reverse()),
      (c: ReturnType<typeof encodeDocs>) => (c.timedRows = Uint32Array.from(c.timedRows, (r) => r + 99)),
      (c: ReturnType<typeof encodeDocs>) => (c.times[0]![0]!.offset = 0.5),
      (c: ReturnType<typeof encodeDocs>) => ((c.times[0]![0] as { grain: string }).grain = 'fortnight'),
      (c: ReturnType<typeof encodeDocs>) => (c.times[0] = []),
      (c: ReturnType<typeof encodeDocs>) => (c.times = c.times.slice(1)),
    ];
    for (const damage of damaged) {
      const columns = encodeDocs(DOCS);
      damage(columns);
      expect(decodeDocs(columns)).toBeNull();
    }
  });
});
