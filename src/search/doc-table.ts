import type { DocColumnsReader } from './doc-columns.js';
import type { IndexDoc } from './index-doc.js';
import type { TimeMention } from '../schema/time-mention.js';
import { textFingerprint } from './text-fingerprint.js';

/** A batch of documents loaded column-wise, their texts' fingerprints, those of them built so far, and how many ids still point into it. */
interface LoadedBatch {
  columns: DocColumnsReader;
  fingerprints: Float64Array;
  built: (IndexDoc | undefined)[];
  live: number;
}

/** Rows per batch a slot can address (a slot is batch × ROWS + row). */
const ROWS = 2 ** 16;

/**
 * The index's documents, by id, and the texts they were indexed with.
 * Documents written one by one are kept as objects, with their texts. A
 * batch loaded at open (a snapshot block) stays in its column form
 * (doc-columns.ts) and each of its documents is built the first time it is
 * read: opening 100,000 memories then costs one map entry each, not three
 * objects and two map entries, and a query builds only the few documents
 * its filter and ranking look at. A batch keeps its texts' fingerprints,
 * not the texts (a heap string each): the keyword postings are built from
 * the page's term lists, a write compares fingerprints (`holdsText`), and a
 * snapshot save takes their terms from the stored page, or else from their
 * records (index-sync/unheld-terms.ts).
 * Documents written since the open join a batch of their own once a
 * snapshot save has encoded their page (`adopt`), so a store written in one
 * session ends up as compact as one reopened. A batch is dropped when no id
 * points into it any more.
 */
export class DocTable {
  /** A document, or the slot of one still in its batch's columns. */
  private readonly entries = new Map<string, IndexDoc | number>();
  /** Texts of the documents that are objects in `entries` (a batch's rows have fingerprints instead). */
  private readonly texts = new Map<string, string>();
  /** By slot / ROWS; a dropped batch leaves a hole, so slots stay valid. */
  private readonly batches: (LoadedBatch | undefined)[] = [];

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  get(id: string): IndexDoc | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry;
    const batch = this.batches[Math.floor(entry / ROWS)]!;
    const row = entry % ROWS;
    return (batch.built[row] ??= batch.columns.doc(row));
  }

  /** `get` without keeping a document it builds (a snapshot save reads every document of a page once). */
  peek(id: string): IndexDoc | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry;
    const batch = this.batches[Math.floor(entry / ROWS)]!;
    const row = entry % ROWS;
    return batch.built[row] ?? batch.columns.doc(row);
  }

  /** The user of a document, without building it. */
  userIdOf(id: string): string | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry?.userId;
    return this.batches[Math.floor(entry / ROWS)]!.columns.userId(entry % ROWS);
  }

  /** The kind of a document, without building it. */
  kindOf(id: string): IndexDoc['kind'] | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry?.kind;
    return this.batches[Math.floor(entry / ROWS)]!.columns.kind(entry % ROWS);
  }

  /** Whether a document is archived, without building it (undefined: not held). */
  archivedOf(id: string): boolean | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry?.archived;
    const batch = this.batches[Math.floor(entry / ROWS)]!;
    const row = entry % ROWS;
    // A built document may have been replaced since it was loaded (setDoc): it is the one that counts.
    return batch.built[row]?.archived ?? batch.columns.archived(row);
  }

  /** A document's `times`, without building it (the very array: not to be changed). */
  timesOf(id: string): readonly TimeMention[] | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return entry?.times;
    const batch = this.batches[Math.floor(entry / ROWS)]!;
    const row = entry % ROWS;
    return batch.built[row]?.times ?? batch.columns.times(row);
  }

  /** Where a document still in its loaded batch's form sits: that batch's ids (the very array) and its row. */
  loadedAt(id: string): { ids: readonly string[]; row: number } | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return undefined;
    return { ids: this.batches[Math.floor(entry / ROWS)]!.columns.ids, row: entry % ROWS };
  }

  /** The text a document was indexed with, when it is held: only for documents written since the open and not adopted yet. */
  text(id: string): string | undefined {
    return this.texts.get(id);
  }

  /** Whether `id` is held and was indexed with `text` (a loaded row compares fingerprints). */
  holdsText(id: string, text: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    if (typeof entry !== 'number') return this.texts.get(id) === text;
    return this.batches[Math.floor(entry / ROWS)]!.fingerprints[entry % ROWS] === textFingerprint(text);
  }

  /** The fingerprint of the text `id` was indexed with (search/text-fingerprint.ts). */
  fingerprintOf(id: string): number | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (typeof entry !== 'number') return textFingerprint(this.texts.get(id)!);
    return this.batches[Math.floor(entry / ROWS)]!.fingerprints[entry % ROWS];
  }

  ids(): IterableIterator<string> {
    return this.entries.keys();
  }

  set(doc: IndexDoc, text: string): void {
    this.release(doc.id);
    this.entries.set(doc.id, doc);
    this.texts.set(doc.id, text);
  }

  /**
   * Replaces a document of the same user, keeping its text: a loaded row
   * stays in its batch, read as `doc` from now on.
   */
  setDoc(doc: IndexDoc): void {
    const entry = this.entries.get(doc.id);
    if (entry === undefined) return;
    if (typeof entry !== 'number') {
      this.entries.set(doc.id, doc);
      return;
    }
    const batch = this.batches[Math.floor(entry / ROWS)]!;
    if (batch.columns.userId(entry % ROWS) !== doc.userId) throw new RangeError(`setDoc keeps a document's user: ${doc.id} is ${batch.columns.userId(entry % ROWS)}'s`);
    batch.built[entry % ROWS] = doc;
  }

  delete(id: string): void {
    this.release(id);
    this.entries.delete(id);
    this.texts.delete(id);
  }

  clear(): void {
    this.entries.clear();
    this.texts.clear();
    this.batches.length = 0;
  }

  /**
   * Adds row `row` of a batch, unbuilt (the caller has removed its id if it
   * was here). Rows of one batch share its columns and its texts'
   * fingerprints, which stay while any id points into them.
   */
  addRow(columns: DocColumnsReader, fingerprints: Float64Array, row: number): void {
    let last = this.batches.length - 1;
    if (this.batches[last]?.columns !== columns) {
      if (columns.size > ROWS) throw new RangeError(`a batch holds at most ${ROWS} documents, not ${columns.size}`);
      if (fingerprints.length !== columns.size) throw new RangeError(`a batch of ${columns.size} documents needs as many fingerprints, not ${fingerprints.length}`);
      last = this.batches.push({ columns, fingerprints, built: [], live: 0 }) - 1;
    }
    this.release(columns.ids[row]!);
    this.entries.set(columns.ids[row]!, last * ROWS + row);
    this.batches[last]!.live++;
  }

  /**
   * Turns documents held as objects into rows of `columns` (their encoding,
   * with their texts' `fingerprints`): row i's document is adopted if the
   * table still holds exactly `docs[i]`, the object that was encoded
   * (documents are replaced, never changed in place, so the same object
   * means the same content), and its text is let go. Returns how many were adopted.
   */
  adopt(columns: DocColumnsReader, fingerprints: Float64Array, docs: readonly IndexDoc[]): number {
    if (columns.size > ROWS) throw new RangeError(`a batch holds at most ${ROWS} documents, not ${columns.size}`);
    if (fingerprints.length !== columns.size) throw new RangeError(`a batch of ${columns.size} documents needs as many fingerprints, not ${fingerprints.length}`);
    let batch: LoadedBatch | undefined;
    let slot = 0;
    for (let row = 0; row < columns.size; row++) {
      const id = columns.ids[row]!;
      if (docs[row] === undefined || this.entries.get(id) !== docs[row]) continue;
      if (!batch) {
        batch = { columns, fingerprints, built: [], live: 0 };
        slot = (this.batches.push(batch) - 1) * ROWS;
      }
      this.entries.set(id, slot + row);
      this.texts.delete(id);
      batch.live++;
    }
    return batch?.live ?? 0;
  }

  /** Batches still held (for tests: a batch no id points into is dropped). */
  get batchCount(): number {
    return this.batches.reduce((n, b) => n + (b ? 1 : 0), 0);
  }

  /** Unpoints `id` from its batch, if it is in one, dropping the batch when it was the last. */
  private release(id: string): void {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return;
    const index = Math.floor(entry / ROWS);
    const batch = this.batches[index]!;
    if (--batch.live === 0) this.batches[index] = undefined;
  }
}
