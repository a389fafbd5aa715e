import { describe, expect, it } from 'vitest';
import { encodeDocs, readColumns, type DocColumnsReader } from '../../src/search/doc-columns.js';
import { DocTable } from '../../src/search/doc-table.js';
import type { DocFilter } from '../../src/search/filters.js';
import type { IndexDoc } from '../../src/search/index-doc.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { resolveRanking } from '../../src/search/ranking.js';
import { textFingerprints } from '../../src/search/text-fingerprint.js';
import { readTermLists, termListsOf } from '../../src/search/term-lists.js';

const listsOf = (texts: string[]) => readTermLists(termListsOf(texts), texts.length)!;
import { rng } from '../../bench/synthetic.js';
import { loadBatch, loadEntries, replayChanges } from '../../src/index-sync/index-loader.js';

/**
 * Documents loaded in a batch (a snapshot block) stay in column form until
 * read (src/search/doc-table.ts); the index must behave exactly as if they had
 * been loaded as objects, through reads, updates, removals and reloads.
 */

function doc(id: string, userId: string, extra: Partial<IndexDoc> = {}): IndexDoc {
  return { id, userId, kind: 'fact', createdAt: 1000, touchedAt: 2000, tags: [], importance: 0.5, pinned: false, archived: false, times: [], fields: { category: 'other' }, ...extra };
}

function columns(docs: IndexDoc[]): DocColumnsReader {
  return readColumns(structuredClone(encodeDocs(docs)))!;
}

function unit(d: number, random: () => number): Float32Array {
  const v = Float32Array.from({ length: d }, () => random() * 2 - 1);
  let sum = 0;
  for (const x of v) sum += x * x;
  return v.map((x) => x / Math.sqrt(sum));
}

describe('DocTable', () => {
  it('builds a loaded document once, on first read, and answers user, kind and text without building it', () => {
    const docs = [doc('a', 'ana', { tags: ['x'] }), doc('b', 'ben')];
    const table = new DocTable();
    const reader = columns(docs);
    let built = 0;
    const counting: DocColumnsReader = { ...reader, doc: (row) => (built++, reader.doc(row)) };
    table.addRow(counting, textFingerprints(['text a', 'text b']), 0);
    table.addRow(counting, textFingerprints(['text a', 'text b']), 1);
    expect(table.size).toBe(2);
    expect(table.userIdOf('b')).toBe('ben');
    expect(table.kindOf('b')).toBe('fact');
    // A loaded row keeps its text's fingerprint, not the text.
    expect(table.text('b')).toBeUndefined();
    expect([table.holdsText('b', 'text b'), table.holdsText('b', 'text a'), table.holdsText('b', 'text b '), table.holdsText('c', 'text b')]).toEqual([true, false, false, false]);
    expect(built).toBe(0);
    expect(table.get('a')).toEqual(docs[0]);
    expect(table.get('a')).toBe(table.get('a'));
    expect(built).toBe(1);
  });

  it('answers whether a document is archived without building it, and from the document that replaced it once there is one', () => {
    const docs = [doc('a', 'ana', { archived: true }), doc('b', 'ana')];
    const table = new DocTable();
    const reader = columns(docs);
    let built = 0;
    const counting: DocColumnsReader = { ...reader, doc: (row) => (built++, reader.doc(row)) };
    table.addRow(counting, textFingerprints(['text a', 'text b']), 0);
    table.addRow(counting, textFingerprints(['text a', 'text b']), 1);
    expect([table.archivedOf('a'), table.archivedOf('b'), table.archivedOf('nobody')]).toEqual([true, false, undefined]);
    expect(built).toBe(0);
    // Replaced in place (an archive, an unarchive): the replacement counts, not the loaded row.
    table.setDoc({ ...docs[0]!, archived: false });
    table.setDoc({ ...docs[1]!, archived: true });
    expect([table.archivedOf('a'), table.archivedOf('b')]).toEqual([false, true]);
    // A document held as an object.
    table.set(doc('c', 'ben', { archived: true }), 'text c');
    expect(table.archivedOf('c')).toBe(true);
    table.delete('c');
    expect(table.archivedOf('c')).toBeUndefined();
  });

  it('replacing a loaded document keeps its text and its row; set, delete and clear behave as a map', () => {
    const table = new DocTable();
    const reader = columns([doc('a', 'ana'), doc('b', 'ana')]);
    table.addRow(reader, textFingerprints(['text a', 'text b']), 0);
    table.addRow(reader, textFingerprints(['text a', 'text b']), 1);
    table.setDoc({ ...doc('a', 'ana'), pinned: true });
    expect(table.get('a')!.pinned).toBe(true);
    expect(table.peek('a')!.pinned).toBe(true);
    expect(table.holdsText('a', 'text a')).toBe(true);
    expect(table.batchCount).toBe(1);
    expect(() => table.setDoc(doc('a', 'ben'))).toThrow(RangeError);
    expect(table.userIdOf('a')).toBe('ana');
    table.setDoc(doc('nobody', 'ana'));
    expect(table.has('nobody')).toBe(false);
    table.set(doc('b', 'ben'), 'new text');
    expect(table.userIdOf('b')).toBe('ben');
    expect(table.text('b')).toBe('new text');
    expect([table.holdsText('b', 'new text'), table.holdsText('b', 'text b')]).toEqual([true, false]);
    table.delete('a');
    expect([table.has('a'), table.get('a'), table.text('a'), table.userIdOf('a')]).toEqual([false, undefined, undefined, undefined]);
    expect([...table.ids()]).toEqual(['b']);
    table.clear();
    expect(table.size).toBe(0);
  });
});

describe('DocTable.adopt: documents written since the open join the columns a save encoded them into', () => {
  it('adopts exactly the documents still held as the objects encoded, and reads them back equal', () => {
    const table = new DocTable();
    const docs = [doc('a', 'ana', { tags: ['x'], pinned: true }), doc('b', 'ana'), doc('c', 'ben', { times: [{ text: 'last week', grain: 'week', offset: -1 }] })];
    docs.forEach((d) => table.set(d, `text ${d.id}`));
    // After the encoding: b is replaced (a new object), c removed.
    table.set({ ...docs[1]!, importance: 0.9 }, 'text b2');
    table.delete('c');
    const adopted = table.adopt(columns(docs), textFingerprints(['text a', 'text b', 'text c']), docs);
    expect(adopted).toBe(1);
    expect(table.get('a')).toEqual(docs[0]);
    expect(table.get('a')).not.toBe(docs[0]); // rebuilt from the columns: the object itself is no longer held
    // Its text is let go: the fingerprint stays.
    expect(table.text('a')).toBeUndefined();
    expect(table.holdsText('a', 'text a')).toBe(true);
    expect(table.get('b')).toEqual({ ...docs[1]!, importance: 0.9 });
    expect(table.text('b')).toBe('text b2');
    expect(table.has('c')).toBe(false);
    expect(table.size).toBe(2);
    // Adopting again (a later save of the same page) changes nothing: a is a row now, not the object.
    expect(table.adopt(columns(docs), textFingerprints(['text a', 'text b', 'text c']), docs)).toBe(0);
    expect(table.batchCount).toBe(1);
  });

  it('drops a batch once no id points into it; peek builds without keeping', () => {
    const table = new DocTable();
    const docs = [doc('a', 'ana'), doc('b', 'ana')];
    const reader = columns(docs);
    let built = 0;
    const counting: DocColumnsReader = { ...reader, doc: (row) => (built++, reader.doc(row)) };
    table.addRow(counting, textFingerprints(['text a', 'text b']), 0);
    table.addRow(counting, textFingerprints(['text a', 'text b']), 1);
    expect(table.peek('a')).toEqual(docs[0]);
    expect(table.peek('a')).toEqual(docs[0]);
    expect(built).toBe(2);
    expect(table.batchCount).toBe(1);
    table.set(doc('a', 'ana', { pinned: true }), 'new a');
    expect(table.batchCount).toBe(1);
    table.delete('b');
    expect(table.batchCount).toBe(0);
    expect(table.get('a')!.pinned).toBe(true);
    expect(table.text('a')).toBe('new a');
    // The same ids loaded again into a new batch, then replaced one by one.
    table.addRow(reader, textFingerprints(['text a', 'text b']), 0);
    table.addRow(reader, textFingerprints(['text a', 'text b']), 1);
    expect(table.holdsText('a', 'text a')).toBe(true);
    table.set(doc('a', 'ana'), 'x');
    expect(table.batchCount).toBe(1);
    table.set(doc('b', 'ana', { importance: 1 }), 'y');
    expect(table.batchCount).toBe(0);
    expect(table.text('b')).toBe('y');
  });
});

describe('MemoryIndex.loadBatch', () => {
  it("searches loaded rows with recall's default filter without building a document, leaving the archived ones out", () => {
    const d = 8;
    const random = rng(3);
    const docs = Array.from({ length: 60 }, (_, i) => doc(`m${i}`, 'ana', { archived: i % 4 === 1, importance: (i % 5) / 5 }));
    const texts = docs.map((_, i) => `memory ${i} about ${i % 2 ? 'tea' : 'coffee'}`);
    const flat = new Float32Array(docs.length * d);
    docs.forEach((_, i) => flat.set(unit(d, random), i * d));
    const reader = columns(docs);
    let built = 0;
    const counting: DocColumnsReader = { ...reader, doc: (row) => (built++, reader.doc(row)) };
    const index = new MemoryIndex(d);
    loadBatch(index, { docs: counting, fingerprints: textFingerprints(texts), lists: listsOf(texts), vectors: flat });
    const search = (options: object) => index.search('ana', { vector: unit(d, random), text: 'coffee' }, { k: 60, ranking: resolveRanking(), now: 5000, ...options });
    const archived = docs.filter((x) => x.archived).map((x) => x.id);
    const ids = search({}).map((hit) => hit.id);
    expect(ids.length).toBe(docs.length - archived.length);
    expect(ids.filter((id) => archived.includes(id))).toEqual([]);
    expect(search({ includeArchived: true }).map((hit) => hit.id).sort()).toEqual(docs.map((x) => x.id).sort());
    expect(built).toBe(0);
    // Archived and unarchived after the load, and rows moved by removals (the last row fills a removed one's place).
    index.updateDoc({ ...index.doc('m2')!, archived: true });
    index.updateDoc({ ...index.doc('m1')!, archived: false });
    for (const id of ['m0', 'm4', 'm8', 'm12', 'm16']) index.remove(id);
    const left = docs.filter((x) => !['m0', 'm4', 'm8', 'm12', 'm16'].includes(x.id));
    const archivedNow = (x: IndexDoc) => (x.id === 'm2' ? true : x.id === 'm1' ? false : x.archived);
    expect(search({}).map((hit) => hit.id).sort()).toEqual(left.filter((x) => !archivedNow(x)).map((x) => x.id).sort());
    expect(search({ includeArchived: true }).length).toBe(left.length);
    // Any other filter reads the documents it tests.
    expect(search({ tags: ['none'] })).toEqual([]);
    expect(built).toBeGreaterThan(0);
  });

  it('answers searches, filters and later writes exactly as load() of the same memories', () => {
    const d = 16;
    const random = rng(11);
    const users = ['ana', 'ben', 'ana', 'ana', 'ben'];
    const docs = Array.from({ length: 300 }, (_, i) =>
      doc(`m${i}`, users[Math.floor(i / 7) % users.length]!, { tags: i % 3 ? [] : ['t'], importance: (i % 10) / 10, createdAt: i, archived: i % 9 === 4, fields: { n: i % 4 } }),
    );
    const texts = docs.map((x, i) => `memory ${i} about ${i % 2 ? 'tea' : 'coffee'}`);
    const vectors = docs.map(() => unit(d, random));
    const flat = new Float32Array(docs.length * d);
    vectors.forEach((v, i) => flat.set(v, i * d));

    const viaLoad = new MemoryIndex(d);
    loadEntries(viaLoad, docs.map((x, i) => ({ doc: x, text: texts[i]!, vector: vectors[i]! })));
    const viaBatch = new MemoryIndex(d);
    // Two batches, the second repeating an id of the first (the later row wins, as with load()).
    loadBatch(viaBatch, { docs: columns(docs.slice(0, 200)), fingerprints: textFingerprints(texts.slice(0, 200)), lists: listsOf(texts.slice(0, 200)), vectors: flat.subarray(0, 200 * d) });
    const again = { ...docs[5]!, userId: 'ben', fields: { n: 99 } };
    loadBatch(viaBatch, { docs: columns([...docs.slice(200), again]), fingerprints: textFingerprints([...texts.slice(200), 'replaced']), lists: listsOf([...texts.slice(200), 'replaced']), vectors: Float32Array.from([...flat.subarray(200 * d), ...vectors[6]!]) });
    viaLoad.upsert({ doc: again, text: 'replaced', vector: vectors[6]! });

    const ranking = resolveRanking();
    const compare = () => {
      expect(viaBatch.size).toBe(viaLoad.size);
      for (const userId of ['ana', 'ben']) {
        const filters: DocFilter[] = [{}, { includeArchived: true }, { tags: ['t'] }, { filter: { n: [1, 99] } }, { since: 50, until: 250 }, { filter: {}, tags: [] }];
        for (const options of filters) {
          const q = unit(d, random);
          const search = (index: MemoryIndex) => index.search(userId, { vector: q, text: 'coffee' }, { k: 15, ranking, now: 5000, ...options });
          expect(search(viaBatch)).toEqual(search(viaLoad));
        }
      }
    };
    compare();
    expect(viaBatch.doc('m5')).toEqual(again);
    expect([viaBatch.holdsText('m5', 'replaced'), viaBatch.holdsText('m5', texts[5]!)]).toEqual([true, false]);
    // Writes after the load: an update of a document still in column form, a removal, a new text.
    for (const index of [viaBatch, viaLoad]) {
      index.updateDoc({ ...index.doc('m10')!, pinned: true });
      index.updateDoc({ ...index.doc('m14')!, archived: true });
      index.updateDoc({ ...index.doc('m13')!, archived: false });
      index.remove('m11');
      index.upsert({ doc: docs[12]!, text: 'now about tea', vector: vectors[13]! });
    }
    compare();
    expect(viaBatch.holdsText('m10', texts[10]!)).toBe(true);
    expect(viaBatch.text('m12')).toBe('now about tea');
  });

  it('replays a change that carries only its document (an access time, a pin) in place: no text held, the same answers as updateDoc', () => {
    const d = 8;
    const random = rng(5);
    const docs = Array.from({ length: 120 }, (_, i) => doc(`m${i}`, i % 2 ? 'ana' : 'ben', { createdAt: i, touchedAt: i }));
    const texts = docs.map((_, i) => `memory ${i} about ${i % 3 ? 'tea' : 'coffee'}`);
    const vectors = docs.map(() => unit(d, random));
    const flat = new Float32Array(docs.length * d);
    vectors.forEach((v, i) => flat.set(v, i * d));
    const batch = () => ({ docs: columns(docs), fingerprints: textFingerprints(texts), lists: listsOf(texts), vectors: flat });
    const replayed = new MemoryIndex(d);
    loadBatch(replayed, batch());
    const updated = new MemoryIndex(d);
    loadBatch(updated, batch());

    const touched = [3, 4, 50, 119].map((i) => ({ ...docs[i]!, touchedAt: 10_000 + i, pinned: i === 50 }));
    replayChanges(replayed, touched.map((changed) => ({ id: changed.id, doc: changed })));
    for (const changed of touched) updated.updateDoc(changed);

    for (const changed of touched) {
      expect(replayed.doc(changed.id)).toEqual(changed);
      // Its text stays the page's fingerprint (a rewrite would hold the text itself), its vector the page's.
      expect(replayed.text(changed.id)).toBeUndefined();
      expect(replayed.holdsText(changed.id, texts[Number(changed.id.slice(1))]!)).toBe(true);
    }
    const ranking = resolveRanking();
    for (const userId of ['ana', 'ben']) {
      const q = unit(d, random);
      const search = (index: MemoryIndex) => index.search(userId, { vector: q, text: 'coffee' }, { k: 20, ranking, now: 20_000 });
      expect(search(replayed)).toEqual(search(updated));
    }
  });
});

