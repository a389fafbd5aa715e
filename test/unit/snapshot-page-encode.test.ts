import { describe, expect, it } from 'vitest';
import { MemoryIndex } from '../../src/search/memory-index.js';
import type { IndexDoc } from '../../src/search/index-doc.js';
import { decodePage, encodePage, type TermSource } from '../../src/index-sync/snapshot-page.js';
import { textFingerprints } from '../../src/search/text-fingerprint.js';
import { docTermsAt, readTermLists, termListsOf } from '../../src/search/term-lists.js';
import { rng } from '../../bench/synthetic.js';
import { adoptDocs, loadBatch, quantizedRows } from '../../src/index-sync/index-loader.js';

/**
 * A snapshot page is encoded in steps (a save yields to calls between them,
 * see saveSnapshot): the steps must give exactly the page that one pass
 * gives (vectors bit for bit, with the matrix's bounds metadata, documents,
 * texts and their term lists), and a memory that leaves the index while the
 * page waits between steps makes the page null (the save then writes
 * nothing), whether its row was read already or not yet. The terms of
 * memories whose text the index does not keep (rows loaded from a page)
 * are asked for once per page, and only those.
 */

/** A term source for an index that holds every text: it must not be asked. */
const unasked: TermSource = async (ids) => {
  throw new Error(`terms read for ${ids.length} memories the index holds`);
};

/** A text's entry in term lists. */
const termsOf = (text: string) => docTermsAt(readTermLists(termListsOf([text]), 1)!, 0);

const WORDS = ['garden', 'piano', 'Porto', 'café', 'naïve', 'hiking', 'museum', 'the', 'and', 'runs', 'running', '東京', '42'];

function doc(id: string, userId: string, i: number): IndexDoc {
  return { id, userId, kind: 'fact', createdAt: 1_700_000_000_000 + i, touchedAt: 1_700_000_500_000 + i, tags: i % 3 === 0 ? ['t'] : [], importance: (i % 10) / 10, pinned: i % 7 === 0, archived: false, times: [], fields: {} };
}

/** An index of `n` memories of two users (runs of each), with vectors holding signed zeros, subnormals and large values, so a bit lost shows. */
function indexOf(n: number, d: number, simd: boolean): { index: MemoryIndex; ids: string[]; written: Map<string, Float32Array> } {
  const random = rng(n * 31 + d + (simd ? 1 : 0));
  const index = new MemoryIndex(d, { simd });
  const ids: string[] = [];
  const written = new Map<string, Float32Array>();
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    const vector = Float32Array.from({ length: d }, (_, j) => (j === 0 ? -0 : j === 1 ? 1e-42 * (i + 1) : (random() * 2 - 1) * (j === 2 ? 1e30 : 1)));
    const text = Array.from({ length: 3 + (i % 9) }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ') + ` #${i}`;
    index.upsert({ doc: doc(id, i % 400 < 250 ? 'u1' : 'u2', i), text, vector });
    ids.push(id);
    written.set(id, vector);
  }
  return { index, ids, written };
}

const bits = (v: Float32Array) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));

describe('encodePage in steps', () => {
  for (const simd of [true, false]) {
    for (const d of [5, 128]) {
      it(`gives the page one pass gives, every vector bit for bit (simd ${simd}, ${d} dims)`, async () => {
        const { index, ids, written } = indexOf(1300, d, simd);
        // Pages list their ids in any order (a page keeps its members' insertion order, across users).
        const order = [...ids].reverse();
        const paces: number[] = [];
        const stepped = await encodePage(index, order, 3, 'page:3:g', unasked, async () => {
          paces.push(paces.length);
        });
        expect(stepped).not.toBeNull();
        // 1,300 memories: three steps of reading (two paces between them) and one before the metadata.
        expect(paces).toHaveLength(3);
        const { row, payload } = stepped!;
        const [vectors, metadata] = payload as [Float32Array, Uint8Array];
        // The vectors as they were written (the matrix keeps them bit for bit), not as the matrix reads them back.
        order.forEach((id, i) => expect(bits(vectors.subarray(i * d, (i + 1) * d))).toEqual(bits(written.get(id)!)));
        const quantized = quantizedRows(index, order)!;
        expect(Array.from(metadata)).toEqual(Array.from(quantized.rows));
        expect(row.quantized).toEqual({ layout: quantized.layout, unbounded: [...quantized.unbounded] });
        const texts = order.map((id) => index.text(id)!);
        expect(Object.keys(row)).not.toContain('texts');
        expect(row.terms).toEqual(termListsOf(texts));
        expect(row.fingerprints).toEqual(textFingerprints(texts));
        expect(row.key).toBe('page:3:g');
        expect(row.page).toBe(3);

        // Read back, the page is the index's own documents and vectors.
        const bytes = new Uint8Array(vectors.byteLength + metadata.byteLength);
        bytes.set(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
        bytes.set(metadata, vectors.byteLength);
        const batch = decodePage(row, bytes, d)!;
        expect(batch.docs.ids).toEqual(order);
        order.forEach((id, i) => expect(batch.docs.doc(i)).toEqual(index.doc(id)));
        expect(bits(batch.vectors)).toEqual(bits(vectors));

        // Loaded into another index, the page's rows keep no text: encoding them again reads the texts from the
        // records (one call, for exactly those ids) and gives the same page.
        const loaded = new MemoryIndex(d, { simd });
        loadBatch(loaded, batch);
        expect(order.map((id) => loaded.text(id))).toEqual(order.map(() => undefined));
        const calls: [string[], number][] = [];
        const records: TermSource = async (wanted, at) => {
          calls.push([[...wanted], at]);
          return new Map(wanted.map((id) => [id, termsOf(index.text(id)!)]));
        };
        const again = (await encodePage(loaded, order, 3, 'page:3:g', records))!;
        expect(calls).toEqual([[order, 3]]);
        expect(again.row).toEqual(row);
        expect(bits(again.payload[0] as Float32Array)).toEqual(bits(vectors));
        // From the page's own lists (as a save takes them from the stored page): the same page again.
        const lists = readTermLists(row.terms, order.length)!;
        const fromPage = (await encodePage(loaded, order, 3, 'page:3:g', async (wanted) => new Map(wanted.map((id) => [id, docTermsAt(lists, order.indexOf(id))]))))!;
        expect(fromPage.row).toEqual(row);
        // A memory the source cannot give terms for (its record gone, or of another text) makes the page null.
        const gone: TermSource = async (wanted) => new Map(wanted.slice(1).map((id) => [id, termsOf(index.text(id)!)]));
        expect(await encodePage(loaded, order, 3, 'k', gone)).toBeNull();
      });
    }
  }

  it('is null when a memory leaves the index between steps, read already or not yet', async () => {
    for (const leaving of ['m5', 'm1200']) {
      const { index, ids } = indexOf(1300, 8, true);
      let paced = 0;
      const page = await encodePage(index, ids, 0, 'k', unasked, async () => {
        if (paced++ === 0) index.remove(leaving);
      });
      expect(page).toBeNull();
    }
  });

  it('runs without pauses for a page of one step, and for an empty page', async () => {
    const { index, ids } = indexOf(300, 8, true);
    let paced = 0;
    const page = await encodePage(index, ids, 0, 'k', unasked, async () => {
      paced++;
    });
    expect(page!.row.docs.ids).toHaveLength(300);
    expect(paced).toBe(1);
    const empty = await encodePage(index, [], 1, 'e', unasked);
    expect(empty!.row.docs.ids).toEqual([]);
    expect(empty!.row.fingerprints).toEqual(new Float64Array(0));
    expect(empty!.row.quantized).toBeNull();
  });
});

describe('adopting an encoded page', () => {
  it('leaves every document and search answer as it was, keeps fingerprints for the texts, and a write after the encoding wins', async () => {
    const { index, ids } = indexOf(1300, 16, true);
    const { resolveRanking } = await import('../../src/search/ranking.js');
    const ranking = resolveRanking();
    const random = rng(7);
    const queries = Array.from({ length: 6 }, () => Float32Array.from({ length: 16 }, () => random() * 2 - 1));
    const answers = () =>
      ['u1', 'u2'].flatMap((userId) =>
        queries.map((vector, q) => index.search(userId, { vector, text: q % 2 ? 'garden piano' : 'museum' }, { k: 12, ranking, now: 1_700_001_000_000, ...(q % 3 === 0 ? { tags: ['t'] } : {}) })),
      );
    const encoded = (await encodePage(index, ids, 0, 'page:0:g', unasked))!;
    // Written after the encoding: this one keeps its new document, not the encoded one.
    const later = { ...index.doc('m3')!, pinned: true, importance: 1 };
    index.updateDoc(later);
    const before = { docs: ids.map((id) => index.doc(id)), texts: ids.map((id) => index.text(id)), answers: answers() };
    const { readColumns } = await import('../../src/search/doc-columns.js');
    expect(adoptDocs(index, readColumns(encoded.row.docs)!, encoded.row.fingerprints!, encoded.docs)).toBe(1299);
    expect(index.doc('m3')).toBe(later);
    expect(ids.map((id) => index.doc(id))).toEqual(before.docs);
    // The adopted documents' texts are let go (m3 was not adopted: it keeps its text); the index still tells them apart.
    expect(ids.map((id) => index.text(id))).toEqual(ids.map((id, i) => (id === 'm3' ? before.texts[i] : undefined)));
    expect(ids.every((id, i) => index.holdsText(id, before.texts[i]!) && !index.holdsText(id, `${before.texts[i]} again`))).toBe(true);
    expect(answers()).toEqual(before.answers);
    // And writes after the adoption still land.
    index.updateDoc({ ...index.doc('m5')!, pinned: true });
    index.remove('m6');
    expect(index.doc('m5')!.pinned).toBe(true);
    expect(index.doc('m6')).toBeUndefined();
    expect(index.holdsText('m5', before.texts[5]!)).toBe(true);
  });
});
