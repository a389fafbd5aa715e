import type { DocColumnsReader } from './doc-columns.js';
import type { IndexDoc } from './index-doc.js';

/** A batch of documents loaded column-wise, those of them built so far, and how many ids still point into it. */
interface LoadedBatch {
  columns: DocColumnsReader;
  texts: readonly string[];
  built: (IndexDoc | undefined)[];
  live: number;
}

/** Rows per batch a slot can address (a slot is batch × ROWS + row). */
const ROWS = 2 ** 16;

/**
 * The index's documents and indexed texts, by id. Documents written one by
 * one are kept as objects. A batch loaded at open (a snapshot block) stays in
 * its column form (doc-columns.ts) and each of its documents is built the
 * first time it is read: opening 100,000 memories then costs one map entry
 * each, not three objects and two map entries, and a query builds only the
 * few documents its filter and ranking look at. Documents written since the
 * open join a batch of their own once a snapshot save has encoded their page
 * (`adopt`), so a store written in one session ends up as compact as one
 * reopened. A batch is dropped when no id points into it any more.
 */
export class DocTable {
  /** A document, or the slot of one still in its batch's columns. */
  private readonly entries = new Map<string, IndexDoc | number>();
  /** Texts of the documents that are objects in `entries`. */
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

  text(id: string): string | undefined {
    const entry = this.entries.get(id);
    if (typeof entry !== 'number') return this.texts.get(id);
    return this.batches[Math.floor(entry / ROWS)]!.texts[entry % ROWS];
  }

  ids(): IterableIterator<string> {
    return this.entries.keys();
  }

  set(doc: IndexDoc, text: string): void {
    this.release(doc.id);
    this.entries.set(doc.id, doc);
    this.texts.set(doc.id, text);
  }

  /** Replaces a document, keeping its text. */
  setDoc(doc: IndexDoc): void {
    const text = this.text(doc.id);
    if (text === undefined) return;
    this.set(doc, text);
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
   * was here). Rows of one batch share its columns and texts, which stay
   * while any id points into them (about the size of the texts).
   */
  addRow(columns: DocColumnsReader, texts: readonly string[], row: number): void {
    let last = this.batches.length - 1;
    if (this.batches[last]?.columns !== columns) {
      if (columns.size > ROWS) throw new RangeError(`a batch holds at most ${ROWS} documents, not ${columns.size}`);
      last = this.batches.push({ columns, texts, built: [], live: 0 }) - 1;
    }
    this.release(columns.ids[row]!);
    this.entries.set(columns.ids[row]!, last * ROWS + row);
    this.batches[last]!.live++;
  }

  /**
   * Turns documents held as objects into rows of `columns` (their encoding,
   * with `texts`): row i's document is adopted if the table still holds
   * exactly `docs[i]`, the object that was encoded (documents are replaced,
   * never changed in place, so the same object means the same content).
   * Returns how many were adopted.
   */
  adopt(columns: DocColumnsReader, texts: readonly string[], docs: readonly IndexDoc[]): number {
    if (columns.size > ROWS) throw new RangeError(`a batch holds at most ${ROWS} documents, not ${columns.size}`);
    let batch: LoadedBatch | undefined;
    let slot = 0;
    for (let row = 0; row < columns.size; row++) {
      const id = columns.ids[row]!;
      if (docs[row] === undefined || this.entries.get(id) !== docs[row]) continue;
      if (!batch) {
        batch = { columns, texts, built: [], live: 0 };
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
