import type { DocColumnsReader } from '../search/doc-columns.js';
import type { IndexDoc } from '../search/index-doc.js';
import type { IndexEntry, MemoryIndex } from '../search/memory-index.js';
import type { TermListsReader } from '../search/term-lists.js';
import { setSignals } from '../search/user-index.js';
import type { QuantizedRun } from '../search/vector-matrix.js';
import type { KeywordBuilder } from './keyword-warmup.js';

/*
 * Filling a MemoryIndex at open, apart from its search core: bulk loads
 * (from the records, or a snapshot's pages), the replay of writes after the
 * snapshot, adopting a saved page's columns, and the deferred keyword build.
 * Each works on the index's tables through `MemoryIndex.parts`.
 */

/**
 * A memory's new state, replayed at open: its entry; or its document alone,
 * when the write left its user, text and vector as the index holds them
 * (an access time, a pin: most of what a killed tab leaves to replay); or
 * neither, when it left the index (deleted, or retired).
 */
export interface IndexChange {
  id: string;
  entry?: IndexEntry;
  doc?: IndexDoc;
}

/** Memories loaded together at open (one snapshot block): row i of each field is memory i. */
export interface IndexBatch {
  /** Their documents, column-wise: built one by one when first read (see search/doc-table.ts). */
  docs: DocColumnsReader;
  /** Their texts' fingerprints (search/text-fingerprint.ts): what the index keeps of the texts. */
  fingerprints: Float64Array;
  /** Their texts' index terms (search/term-lists.ts): the keyword postings are built from these. */
  lists: TermListsReader;
  /** One vector per memory, end to end. */
  vectors: Float32Array;
  /** Their bounds' metadata as `quantizedRows` gave it, when it was kept (the matrix computes it otherwise). */
  quantized?: QuantizedRun;
}

/**
 * Holds `docs`, the documents a snapshot page was just encoded from, as
 * that encoding's rows (`columns`, with the texts' `fingerprints`) where
 * they are still current (see DocTable.adopt): the memory of documents
 * written since the open falls to what a reopened index holds. Returns how
 * many were adopted.
 */
export function adoptDocs(index: MemoryIndex, columns: DocColumnsReader, fingerprints: Float64Array, docs: readonly IndexDoc[]): number {
  return index.parts().docs.adopt(columns, fingerprints, docs);
}

/**
 * Bulk load (at open). Keyword postings are deferred: queries read the
 * queue as it is, later writes join it (search/pending-keywords.ts), and
 * `buildKeywords` builds it in slices while calls pause, so no first query
 * waits for every text's postings.
 */
export function loadEntries(index: MemoryIndex, entries: IndexEntry[]): void {
  const parts = index.parts();
  const byUser = new Map<string, IndexEntry[]>();
  for (const entry of entries) {
    if (parts.docs.has(entry.doc.id)) parts.remove(entry.doc.id);
    let list = byUser.get(entry.doc.userId);
    if (!list) byUser.set(entry.doc.userId, (list = []));
    list.push(entry);
  }
  for (const [userId, list] of byUser) {
    const user = parts.userIndex(userId);
    for (const entry of list) {
      const fresh = user.vectors.row(entry.doc.id) === undefined;
      user.vectors.upsert(entry.doc.id, entry.vector);
      setSignals(user, entry.doc, fresh);
      parts.docs.set(entry.doc, entry.text);
      parts.report.changed(entry.doc.id);
    }
    user.pendingKeywords.add(
      list.map((entry) => entry.doc.id),
      list.map((entry) => entry.text),
    );
  }
}

/** Makes room for this many more rows per user before a bulk load (`loadBatch`), so each matrix grows once. */
export function reserveRows(index: MemoryIndex, rowsPerUser: ReadonlyMap<string, number>): void {
  const parts = index.parts();
  for (const [userId, rows] of rowsPerUser) {
    const user = parts.userIndex(userId);
    user.vectors.reserve(user.vectors.size + rows);
  }
}

/**
 * Bulk load of a batch (at open, from the snapshot), as `loadEntries` but with
 * each user's consecutive rows appended to its matrix in one pass, their
 * bounds' metadata restored rather than recomputed, and their documents left in
 * column form until they are read.
 */
export function loadBatch(index: MemoryIndex, batch: IndexBatch): void {
  const parts = index.parts();
  const { docs, fingerprints, lists, vectors, quantized } = batch;
  const d = parts.dimension;
  const ids = docs.ids;
  const n = docs.size;
  let start = 0;
  let userId = n > 0 ? docs.userId(0) : '';
  // Rows [start, end): consecutive rows of one user, none of them indexed before.
  const appendRun = (end: number) => {
    if (end === start) return;
    const whole = start === 0 && end === n;
    const run = quantized && {
      layout: quantized.layout,
      rows: quantized.rows.subarray((start * quantized.rows.length) / n, (end * quantized.rows.length) / n),
      unbounded: whole ? quantized.unbounded : quantized.unbounded.filter((i) => i >= start && i < end).map((i) => i - start),
    };
    const user = parts.userIndex(userId);
    const first = user.vectors.size;
    user.vectors.append(whole ? ids : ids.slice(start, end), vectors.subarray(start * d, end * d), run);
    for (let i = start; i < end; i++) {
      user.signals.set(
        first + i - start,
        { kind: docs.kind(i), importance: docs.importance(i), touchedAt: docs.touchedAt(i), pinned: docs.pinned(i), archived: docs.archived(i), dated: docs.dated(i), speaker: docs.speaker(i), createdAt: docs.createdAt(i), session: docs.session(i) },
        true,
      );
    }
    // Unqueued: an id already indexed was removed above (a queued removal), and a page holds each id once.
    user.pendingKeywords.add(ids, undefined, start, end, lists, true);
    start = end;
  };
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const rowUser = docs.userId(i);
    if (rowUser !== userId) {
      appendRun(i);
      userId = rowUser;
    }
    if (parts.docs.has(id)) {
      // Already indexed (or earlier in this batch): the later row wins, as with `loadEntries`.
      appendRun(i);
      parts.remove(id);
    }
    parts.docs.addRow(docs, fingerprints, i);
    parts.report.changed(id);
  }
  appendRun(n);
}

/**
 * Applies writes made after the loaded snapshot (replayed from the write
 * log at open), in order, as `MemoryIndex.upsert`, `updateDoc` and `remove` would,
 * except that the keyword work is queued behind the snapshot's own (a
 * removal as a null text): nothing forces every posting of a user to be
 * built at open.
 */
export function replayChanges(index: MemoryIndex, changes: readonly IndexChange[]): void {
  const parts = index.parts();
  for (const { id, entry, doc } of changes) {
    if (doc) {
      // Its vector, terms and text fingerprint stay the loaded page's: nothing to queue, no text to hold.
      parts.updateDoc(doc);
      continue;
    }
    const userId = parts.docs.userIdOf(id);
    if (userId !== undefined && (!entry || entry.doc.userId !== userId)) {
      const user = parts.users.get(userId)!;
      const row = user.vectors.row(id);
      if (row !== undefined) user.signals.release(row);
      user.vectors.remove(id);
      user.pendingKeywords.add([id], [null]);
      parts.docs.delete(id);
      parts.report.removed(id);
    }
    if (!entry) continue;
    const user = parts.userIndex(entry.doc.userId);
    const fresh = user.vectors.row(id) === undefined;
    user.vectors.upsert(id, entry.vector);
    setSignals(user, entry.doc, fresh);
    user.pendingKeywords.add([id], [entry.text]);
    parts.docs.set(entry.doc, entry.text);
    parts.report.changed(id);
  }
}

/** The bounds' metadata of `ids`' rows, in the form `loadBatch` takes back; undefined if the index lacks an id. */
export function quantizedRows(index: MemoryIndex, ids: readonly string[]): QuantizedRun | undefined {
  const parts = index.parts();
  if (ids.length === 0) return undefined;
  // Each user's rows live in that user's matrix: copy runs of consecutive same-user ids, then join them.
  const runs: QuantizedRun[] = [];
  let start = 0;
  while (start < ids.length) {
    const userId = parts.docs.userIdOf(ids[start]!);
    if (userId === undefined) return undefined;
    let end = start + 1;
    while (end < ids.length && parts.docs.userIdOf(ids[end]!) === userId) end++;
    const part = parts.users.get(userId)?.vectors.quantizedRows(ids.slice(start, end));
    if (!part) return undefined;
    runs.push({ ...part, unbounded: part.unbounded.map((i) => i + start) });
    start = end;
  }
  if (runs.length === 1) return runs[0];
  const rows = new Uint8Array(runs.reduce((n, part) => n + part.rows.length, 0));
  let offset = 0;
  for (const part of runs) {
    rows.set(part.rows, offset);
    offset += part.rows.length;
  }
  return { layout: runs[0]!.layout, rows, unbounded: runs.flatMap((part) => part.unbounded) };
}

/**
 * Background work on deferred keyword postings, at most about `budget`
 * documents' worth per call: first each queued chunk is turned around for
 * the queries meanwhile (`PendingKeywords.turnAround`), then, when `build`,
 * the postings are built. Returns 'done' when none are deferred, 'more'
 * when the engine should call again in a later task, 'paused' when only
 * building is left and `build` was false.
 */
export function buildKeywords(index: MemoryIndex, budget = Infinity, build = true): 'done' | 'more' | 'paused' {
  const parts = index.parts();
  for (const user of parts.users.values()) if (user.pendingKeywords.turnAround(budget)) return 'more';
  if (![...parts.users.values()].some((user) => user.pendingKeywords.size > 0)) return 'done';
  if (!build) return 'paused';
  let left = budget;
  for (const user of parts.users.values()) {
    left -= user.pendingKeywords.drainInto(left);
    if (left <= 0) break;
  }
  for (const user of parts.users.values()) if (user.pendingKeywords.size > 0) return 'more';
  return 'done';
}


/** `buildKeywords` over `index`, for the background warm-up (keyword-warmup.ts). */
export function keywordBuilder(index: MemoryIndex): KeywordBuilder {
  return { buildKeywords: (budget, build) => buildKeywords(index, budget, build) };
}
