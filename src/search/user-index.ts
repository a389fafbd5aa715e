import { sessionOf, speakerOf, type IndexDoc } from './index-doc.js';
import { KeywordIndex } from './keyword-index.js';
import { PendingKeywords, type LoadedRow } from './pending-keywords.js';
import { RowSignals } from './row-signals.js';
import { VectorMatrix, type VectorMatrixOptions } from './vector-matrix.js';

/** One user's slice of the index: a dense matrix and a BM25 index over the same ids. */
export interface UserIndex {
  vectors: VectorMatrix;
  /** Each matrix row's ranking inputs (type, importance, pinned, last touch, dated, speaker), moved with the rows. */
  signals: RowSignals;
  /** Its keyword index, behind a queue of documents whose postings are not built yet (see index-sync/index-loader.ts), which queries read as they are and writes join. */
  pendingKeywords: PendingKeywords;
}

/**
 * An empty slice; its matrix carries the signals along as its companion, so rows and signals move together.
 * `locate`: where a document loaded in bulk sits in its page (DocTable.loadedAt), for the keyword queue.
 */
export function newUserIndex(dimension: number, matrix: Omit<VectorMatrixOptions, 'companion'>, locate?: (id: string) => LoadedRow | undefined): UserIndex {
  const signals = new RowSignals();
  return {
    vectors: new VectorMatrix(dimension, { ...matrix, companion: signals }),
    signals,
    pendingKeywords: new PendingKeywords(new KeywordIndex(), locate),
  };
}

/** Copies a document's ranking inputs to its row (the matrix holds its vector already); `fresh`: the row is new. */
export function setSignals(user: UserIndex, doc: IndexDoc, fresh: boolean): void {
  const row = user.vectors.row(doc.id);
  if (row === undefined) return;
  const { kind, importance, touchedAt, pinned, archived, createdAt } = doc;
  user.signals.set(row, { kind, importance, touchedAt, pinned, archived, dated: doc.times.length > 0, speaker: speakerOf(doc), createdAt, session: sessionOf(doc) }, fresh);
}
