import type { DocColumnsReader } from './doc-columns.js';
import type { IndexDoc } from './index-doc.js';

/** A batch of documents loaded column-wise, and those of them built so far. */
interface LoadedBatch {
  columns: DocColumnsReader;
  texts: readonly string[];
  built: (IndexDoc | undefined)[];
}

/** Rows per batch a slot can address (a slot is batch × ROWS + row). */
const ROWS = 2 ** 16;

/**
 * The index's documents and indexed texts, by id. Documents written one by
 * one are kept as objects. A batch loaded at open (a snapshot block) stays in
 * its column form (doc-columns.ts) and each of its documents is built the
 * first time it is read: opening 100,000 memories then costs one map entry
 * each, not three objects and two map entries, and a query builds only the
 * few documents its filter and ranking look at.
 */
export class DocTable {
  /** A document, or the slot of one still in its batch's columns. */
  private readonly entries = new Map<string, IndexDoc | number>();
  /** Texts of the documents that are objects in `entries`. */
  private readonly texts = new Map<string, string>();
  private readonly batches: LoadedBatch[] = [];

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
   * until `clear` (about the size of the texts).
   */
  addRow(columns: DocColumnsReader, texts: readonly string[], row: number): void {
    let last = this.batches.length - 1;
    if (this.batches[last]?.columns !== columns) {
      if (columns.size > ROWS) throw new RangeError(`a batch holds at most ${ROWS} documents, not ${columns.size}`);
      last = this.batches.push({ columns, texts, built: [] }) - 1;
    }
    this.entries.set(columns.ids[row]!, last * ROWS + row);
  }
}
