import type { MemoryIndex } from '../search/memory-index.js';
import { quantizedRows, type IndexBatch } from './index-loader.js';
import type { IndexDoc } from '../search/index-doc.js';
import { encodeDocs, readColumns, type DocColumns } from '../search/doc-columns.js';
import { readTermLists, termListsOfTokens, type DocTerms, type TermLists } from '../search/term-lists.js';
import { tokenize } from '../text/tokenize.js';
import { textFingerprint } from '../search/text-fingerprint.js';
import type { PayloadFile } from '../store/page-file-store.js';

/**
 * One page of the index snapshot (index-snapshot.ts): up to PAGE_SIZE
 * memories as the index holds them, laid out so that loading a page is a
 * few copies rather than per-memory work:
 *
 * - the documents column-wise (search/doc-columns.ts), so structured clone
 *   restores a few typed arrays instead of thousands of objects, and the
 *   index builds a document only when it is read;
 * - the texts' index terms (search/term-lists.ts), from which the keyword
 *   postings are built without tokenising the texts again, and the texts'
 *   fingerprints (search/text-fingerprint.ts), which is all the index keeps
 *   of a loaded memory's text; not the texts, a string each, which made up
 *   much of a page's bytes and of the time to read it (a page whose lists
 *   this engram cannot read, from another tokenizer version, is not used:
 *   the open reads the records);
 * - the vectors end to end, which the index copies into its matrix in one go;
 * - the per-row norms the matrix bounds scores with (simd/split-rows.ts), so
 *   opening does not compute them again. They are tagged with their layout
 *   and recomputed when that differs (another version of engram saved them:
 *   an older one kept an int8 copy here).
 *
 * The vectors and the norms travel as one payload: a file of the origin
 * private file system where the engine can write one (page-files.ts: a
 * dedicated worker), else a Blob, which IndexedDB hands back as a handle
 * whose `arrayBuffer()` gives the bytes without the copy that deserialising
 * a typed array inside the value costs (`npm run bench:payloads` compares
 * files, Blobs and typed arrays). The floats are
 * in the platform's byte order: a snapshot is read back on the device that
 * wrote it.
 */
export interface SnapshotPage {
  key: string;
  page: number;
  docs: DocColumns;
  /** The texts' index terms. */
  terms: TermLists;
  /** The texts' fingerprints (search/text-fingerprint.ts). */
  fingerprints: Float64Array;
  /** The page's vectors end to end (`docs.ids.length × dimension` f32), then their rows' norms when `quantized` is set. */
  payload: Blob | PayloadFile;
  /** How to read the norms that follow the vectors in `payload`; null when the saving index kept none. */
  quantized: { layout: string; unbounded: number[] } | null;
}

/**
 * Memories read and tokenised per step of `encodePage` (a quarter of a
 * page). A whole page at once was one long task of the engine's thread (its
 * vectors read, its documents built, its texts tokenised), which a recall
 * arriving meanwhile waited for; a step is a quarter of that.
 */
const ENCODE_STEP = 512;

/**
 * The index terms of memories the index keeps no text of (those loaded
 * from a page, search/doc-table.ts), each of the text the index holds
 * (its fingerprint checked), for saving page `page` again; an id left out
 * makes the page null (index-sync/unheld-terms.ts reads them).
 */
export type TermSource = (ids: readonly string[], page: number) => Promise<Map<string, DocTerms>>;

/**
 * One page's row, read from the index, and its payload's parts (which the
 * caller stores: see `payload`); null if one of its memories is no longer
 * indexed. The memories are read in steps of ENCODE_STEP with `pace`
 * awaited between steps (the caller yields to calls there), so a page may
 * mix states of the index from before and after a write: the save that
 * encodes it checks the store's write mark at the end and does not commit
 * then (every change of the index moves the mark). The terms of the
 * memories whose text the index does not hold come from `readTerms`
 * first; one it cannot give makes the page null too. `docs` are the
 * documents encoded, as the index held them (see `MemoryIndex.adoptDocs`).
 */
export async function encodePage(
  index: MemoryIndex,
  ids: readonly string[],
  page: number,
  key: string,
  readTerms: TermSource,
  pace: () => Promise<void> = async () => undefined,
): Promise<{ row: Omit<SnapshotPage, 'payload'>; payload: ArrayBufferView[]; docs: IndexDoc[] } | null> {
  const dimension = index.dimension;
  const unheld = ids.filter((id) => index.text(id) === undefined);
  const read = unheld.length > 0 ? await readTerms(unheld, page) : new Map<string, DocTerms>();
  const vectors = new Float32Array(ids.length * dimension);
  const docs: IndexDoc[] = [];
  const fingerprints = new Float64Array(ids.length);
  const terms: (string[] | DocTerms)[] = [];
  for (let from = 0; from < ids.length; from += ENCODE_STEP) {
    if (from > 0) await pace();
    const to = Math.min(ids.length, from + ENCODE_STEP);
    for (let i = from; i < to; i++) {
      const id = ids[i]!;
      const doc = index.peekDoc(id);
      const text = index.text(id);
      const known = text === undefined ? read.get(id) : undefined;
      const fingerprint = text === undefined ? index.fingerprintOf(id) : textFingerprint(text);
      if (!doc || (text === undefined && !known) || fingerprint === undefined || !index.vectorInto(id, vectors, i * dimension)) return null;
      docs.push(doc);
      fingerprints[i] = fingerprint;
      terms.push(text === undefined ? known! : tokenize(text));
    }
  }
  await pace();
  const quantized = quantizedRows(index, ids);
  if (ids.length > 0 && !quantized) return null;
  return {
    row: {
      key,
      page,
      docs: encodeDocs(docs),
      terms: termListsOfTokens(terms),
      fingerprints,
      quantized: quantized ? { layout: quantized.layout, unbounded: [...quantized.unbounded] } : null,
    },
    payload: quantized ? [vectors, quantized.rows] : [vectors],
    docs,
  };
}

/**
 * Page `saved` again under `key` when only its members' documents changed
 * since it was written (access times, pins: what recalls leave): its
 * documents encoded from the index in the saved order, everything else (the
 * term lists, fingerprints, norms, and the payload with the vectors) the
 * saved row's, so a save after recalls writes a few hundred kilobytes of
 * columns per page instead of its vectors too (3 MB a page at 384-d). Null
 * when the page is not the saved one in anything but its documents: another
 * set of members, or one whose text fingerprint differs.
 */
export function reencodeDocs(index: MemoryIndex, ids: readonly string[], saved: SnapshotPage, key: string): { row: SnapshotPage; docs: IndexDoc[] } | null {
  const columns = readColumns(saved.docs);
  if (!columns || columns.ids.length !== ids.length || saved.fingerprints.length !== ids.length) return null;
  const members = new Set(ids);
  const docs: IndexDoc[] = [];
  for (let i = 0; i < columns.ids.length; i++) {
    const id = columns.ids[i]!;
    const doc = members.has(id) ? index.peekDoc(id) : undefined;
    const text = index.text(id);
    const fingerprint = text === undefined ? index.fingerprintOf(id) : textFingerprint(text);
    if (!doc || fingerprint !== saved.fingerprints[i]) return null;
    docs.push(doc);
  }
  return { row: { ...saved, key, page: saved.page, docs: encodeDocs(docs) }, docs };
}

/**
 * What `loadBatch` (index-loader.ts) takes, from a page read back and its payload's
 * bytes (at a 4-byte aligned offset; the batch views them, so they must stay
 * until it is loaded); null when the page does not fit together, or its
 * term lists are of another tokenizer version (the snapshot is then
 * ignored).
 */
export function decodePage(row: Omit<SnapshotPage, 'payload'>, payload: Uint8Array, dimension: number): IndexBatch | null {
  const docs = readColumns(row.docs);
  if (!docs) return null;
  const n = docs.size;
  const floats = n * dimension;
  const { fingerprints } = row;
  if (!(fingerprints instanceof Float64Array) || fingerprints.length !== n || payload.byteLength < floats * 4 || payload.byteOffset % 4 !== 0) return null;
  const lists = readTermLists(row.terms, n);
  if (!lists) return null;
  const vectors = new Float32Array(payload.buffer, payload.byteOffset, floats);
  const rows = payload.subarray(floats * 4);
  const quantized = row.quantized;
  if (!quantized) return rows.length === 0 ? { docs, fingerprints, lists, vectors } : null;
  // Norms that do not fit are left out: the matrix then computes them itself.
  const fits = n > 0 && rows.length % n === 0 && quantized.unbounded.every((i) => Number.isInteger(i) && i >= 0 && i < n);
  return { docs, fingerprints, lists, vectors, quantized: fits ? { layout: quantized.layout, rows, unbounded: quantized.unbounded } : undefined };
}
