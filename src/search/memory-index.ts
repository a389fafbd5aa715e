import type { MemoryType } from '../schema/common.js';
import { compileFilter, testsOnlyArchived, testsOnlyRowSignals, type DocFilter } from './filters.js';
import type { DocColumnsReader } from './doc-columns.js';
import { DocTable } from './doc-table.js';
import { NO_TIMES, sessionOf, speakerOf, type IndexDoc } from './index-doc.js';
import { KeywordIndex, type KeywordResult } from './keyword-index.js';
import { PendingKeywords } from './pending-keywords.js';
import { namedSpeakers, type NamedSpeakers } from './named-speakers.js';
import { namedBy, ordersByCosineAlone, scoreOf, type Ranking, type ScoreParts } from './ranking.js';
import { KINDS_BY_CODE, RowSignals, type SessionSpan } from './row-signals.js';
import { decodeMatch, encodeMatch, matchWindows, type TimeWindows } from './time-windows.js';
import type { TermListsReader } from './term-lists.js';
import { candidateRows } from './score-bounds.js';
import { VectorMatrix, type QuantizedRun, type VectorMatrixOptions } from './vector-matrix.js';

/** One user's slice of the index: a dense matrix and a BM25 index over the same ids. */
interface UserIndex {
  vectors: VectorMatrix;
  /** Each matrix row's ranking inputs (type, importance, pinned, last touch, dated, speaker), moved with the rows. */
  signals: RowSignals;
  /** Its keyword index, behind a queue of documents whose postings are not built yet (see `load`), which queries read as they are and writes join. */
  pendingKeywords: PendingKeywords;
}

/** Told of every change to the index, so a persisted snapshot knows what to rewrite (index-sync/index-snapshot.ts). */
export interface IndexObserver {
  /** `id`'s memory was added or changed; `fieldsOnly` when only its document changed (an access time, a pin), not its vector or text. */
  changed(id: string, fieldsOnly?: boolean): void;
  removed(id: string): void;
  cleared(): void;
}

export interface IndexEntry {
  doc: IndexDoc;
  text: string;
  vector: Float32Array;
}

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

export interface IndexHit {
  id: string;
  kind: MemoryType | 'task';
  score: number;
  parts: ScoreParts;
}

/**
 * The in-memory search index of one database: a cache of the stored vectors
 * (`vectorBlocks`) plus keyword postings, partitioned per user so a query
 * only ever scans its own user's rows. IndexedDB stays the source of truth; the engine rebuilds
 * this at open and applies every committed write to it.
 */
export class MemoryIndex {
  readonly dimension: number;
  /** Each memory's document, and its indexed text or that text's fingerprint (search/doc-table.ts). */
  private readonly docs = new DocTable();
  private readonly users = new Map<string, UserIndex>();
  private observer: IndexObserver | undefined;
  private readonly matrixOptions: Omit<VectorMatrixOptions, 'companion'>;

  /** `matrix`: options of every user's VectorMatrix (tests use them to run both scan paths). */
  constructor(dimension: number, matrix: Omit<VectorMatrixOptions, 'companion'> = {}) {
    this.dimension = dimension;
    this.matrixOptions = matrix;
  }

  /** Reports every later change of the index to `observer` (the snapshot writer), or to no one. */
  reportChangesTo(observer: IndexObserver | undefined): void {
    this.observer = observer;
  }

  /**
   * Bytes the vectors hold in memory: every user's matrix buffer
   * (WebAssembly memory, or ArrayBuffers in the JS fallback), with scratch
   * and spare rows. The rest of the index lives on the JS heap.
   */
  get vectorBytes(): number {
    let bytes = 0;
    for (const user of this.users.values()) bytes += user.vectors.bytes;
    return bytes;
  }

  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  doc(id: string): IndexDoc | undefined {
    return this.docs.get(id);
  }

  /** `doc` without keeping a document it builds from a loaded page's columns (a snapshot save reads them all once). */
  peekDoc(id: string): IndexDoc | undefined {
    return this.docs.peek(id);
  }

  /**
   * Holds `docs`, the documents a snapshot page was just encoded from, as
   * that encoding's rows (`columns`, with the texts' `fingerprints`) where
   * they are still current (see DocTable.adopt): the memory of documents
   * written since the open falls to what a reopened index holds. Returns how
   * many were adopted.
   */
  adoptDocs(columns: DocColumnsReader, fingerprints: Float64Array, docs: readonly IndexDoc[]): number {
    return this.docs.adopt(columns, fingerprints, docs);
  }

  /** The text `id` was indexed with, when the index holds it: documents written since the open, until a snapshot save encodes them (a save takes the others' terms from the stored page or the record: persistence/unheld-terms.ts). */
  text(id: string): string | undefined {
    return this.docs.text(id);
  }

  /** The kind of `id`'s memory, without building its document. */
  kindOf(id: string): IndexDoc['kind'] | undefined {
    return this.docs.kindOf(id);
  }

  /** The fingerprint of the text `id` is indexed with. */
  fingerprintOf(id: string): number | undefined {
    return this.docs.fingerprintOf(id);
  }

  /** Whether `id` is indexed with `text` (compares fingerprints where the index keeps no text). */
  holdsText(id: string, text: string): boolean {
    return this.docs.holdsText(id, text);
  }

  vector(id: string): Float32Array | undefined {
    const userId = this.docs.userIdOf(id);
    return userId === undefined ? undefined : this.users.get(userId)?.vectors.vector(id);
  }

  /** Writes the vector of `id` into `out` from `offset` without allocating; false when `id` is not indexed. */
  vectorInto(id: string, out: Float32Array, offset: number): boolean {
    const userId = this.docs.userIdOf(id);
    return userId !== undefined && (this.users.get(userId)?.vectors.vectorInto(id, out, offset) ?? false);
  }

  upsert(entry: IndexEntry): void {
    const previous = this.docs.userIdOf(entry.doc.id);
    if (previous !== undefined && previous !== entry.doc.userId) this.remove(entry.doc.id);
    const user = this.userIndex(entry.doc.userId);
    const fresh = user.vectors.row(entry.doc.id) === undefined;
    user.vectors.upsert(entry.doc.id, entry.vector);
    setSignals(user, entry.doc, fresh);
    user.pendingKeywords.write(entry.doc.id, entry.text);
    this.docs.set(entry.doc, entry.text);
    this.observer?.changed(entry.doc.id);
  }

  /**
   * Bulk load (at open). Keyword postings are deferred: queries read the
   * queue as it is, later writes join it (search/pending-keywords.ts), and
   * `buildKeywords` builds it in slices while calls pause, so no first query
   * waits for every text's postings.
   */
  load(entries: IndexEntry[]): void {
    const byUser = new Map<string, IndexEntry[]>();
    for (const entry of entries) {
      if (this.docs.has(entry.doc.id)) this.remove(entry.doc.id);
      let list = byUser.get(entry.doc.userId);
      if (!list) byUser.set(entry.doc.userId, (list = []));
      list.push(entry);
    }
    for (const [userId, list] of byUser) {
      const user = this.userIndex(userId);
      for (const entry of list) {
        const fresh = user.vectors.row(entry.doc.id) === undefined;
        user.vectors.upsert(entry.doc.id, entry.vector);
        setSignals(user, entry.doc, fresh);
        this.docs.set(entry.doc, entry.text);
        this.observer?.changed(entry.doc.id);
      }
      user.pendingKeywords.add(
        list.map((entry) => entry.doc.id),
        list.map((entry) => entry.text),
      );
    }
  }

  /** Makes room for this many more rows per user before a bulk load (`loadBatch`), so each matrix grows once. */
  reserve(rowsPerUser: ReadonlyMap<string, number>): void {
    for (const [userId, rows] of rowsPerUser) {
      const user = this.userIndex(userId);
      user.vectors.reserve(user.vectors.size + rows);
    }
  }

  /**
   * Bulk load of a batch (at open, from the snapshot), as `load` but with
   * each user's consecutive rows appended to its matrix in one pass, their
   * bounds' metadata restored rather than recomputed, and their documents left in
   * column form until they are read.
   */
  loadBatch(batch: IndexBatch): void {
    const { docs, fingerprints, lists, vectors, quantized } = batch;
    const d = this.dimension;
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
      const user = this.userIndex(userId);
      const first = user.vectors.size;
      user.vectors.append(whole ? ids : ids.slice(start, end), vectors.subarray(start * d, end * d), run);
      for (let i = start; i < end; i++) {
        user.signals.set(
          first + i - start,
          { kind: docs.kind(i), importance: docs.importance(i), touchedAt: docs.touchedAt(i), pinned: docs.pinned(i), archived: docs.archived(i), dated: docs.dated(i), speaker: docs.speaker(i), createdAt: docs.createdAt(i), session: docs.session(i) },
          true,
        );
      }
      user.pendingKeywords.add(ids, undefined, start, end, lists);
      start = end;
    };
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      const rowUser = docs.userId(i);
      if (rowUser !== userId) {
        appendRun(i);
        userId = rowUser;
      }
      if (this.docs.has(id)) {
        // Already indexed (or earlier in this batch): the later row wins, as with `load`.
        appendRun(i);
        this.remove(id);
      }
      this.docs.addRow(docs, fingerprints, i);
      this.observer?.changed(id);
    }
    appendRun(n);
  }

  /**
   * Applies writes made after the loaded snapshot (replayed from the write
   * log at open), in order, as `upsert`, `updateDoc` and `remove` would,
   * except that the keyword work is queued behind the snapshot's own (a
   * removal as a null text): nothing forces every posting of a user to be
   * built at open.
   */
  replay(changes: readonly IndexChange[]): void {
    for (const { id, entry, doc } of changes) {
      if (doc) {
        // Its vector, terms and text fingerprint stay the loaded page's: nothing to queue, no text to hold.
        this.updateDoc(doc);
        continue;
      }
      const userId = this.docs.userIdOf(id);
      if (userId !== undefined && (!entry || entry.doc.userId !== userId)) {
        const user = this.users.get(userId)!;
        const row = user.vectors.row(id);
        if (row !== undefined) user.signals.release(row);
        user.vectors.remove(id);
        user.pendingKeywords.add([id], [null]);
        this.docs.delete(id);
        this.observer?.removed(id);
      }
      if (!entry) continue;
      const user = this.userIndex(entry.doc.userId);
      const fresh = user.vectors.row(id) === undefined;
      user.vectors.upsert(id, entry.vector);
      setSignals(user, entry.doc, fresh);
      user.pendingKeywords.add([id], [entry.text]);
      this.docs.set(entry.doc, entry.text);
      this.observer?.changed(id);
    }
  }

  /** The bounds' metadata of `ids`' rows, in the form `loadBatch` takes back; undefined if the index lacks an id. */
  quantizedRows(ids: readonly string[]): QuantizedRun | undefined {
    if (ids.length === 0) return undefined;
    // Each user's rows live in that user's matrix: copy runs of consecutive same-user ids, then join them.
    const parts: QuantizedRun[] = [];
    let start = 0;
    while (start < ids.length) {
      const userId = this.docs.userIdOf(ids[start]!);
      if (userId === undefined) return undefined;
      let end = start + 1;
      while (end < ids.length && this.docs.userIdOf(ids[end]!) === userId) end++;
      const part = this.users.get(userId)?.vectors.quantizedRows(ids.slice(start, end));
      if (!part) return undefined;
      parts.push({ ...part, unbounded: part.unbounded.map((i) => i + start) });
      start = end;
    }
    if (parts.length === 1) return parts[0];
    const rows = new Uint8Array(parts.reduce((n, part) => n + part.rows.length, 0));
    let offset = 0;
    for (const part of parts) {
      rows.set(part.rows, offset);
      offset += part.rows.length;
    }
    return { layout: parts[0]!.layout, rows, unbounded: parts.flatMap((part) => part.unbounded) };
  }

  /**
   * Background work on deferred keyword postings, at most about `budget`
   * documents' worth per call: first each queued chunk is turned around for
   * the queries meanwhile (`PendingKeywords.turnAround`), then, when `build`,
   * the postings are built. Returns 'done' when none are deferred, 'more'
   * when the engine should call again in a later task, 'paused' when only
   * building is left and `build` was false.
   */
  buildKeywords(budget = Infinity, build = true): 'done' | 'more' | 'paused' {
    for (const user of this.users.values()) if (user.pendingKeywords.turnAround(budget)) return 'more';
    if (![...this.users.values()].some((user) => user.pendingKeywords.size > 0)) return 'done';
    if (!build) return 'paused';
    let left = budget;
    for (const user of this.users.values()) {
      left -= user.pendingKeywords.drainInto(left);
      if (left <= 0) break;
    }
    for (const user of this.users.values()) if (user.pendingKeywords.size > 0) return 'more';
    return 'done';
  }

  /** Replaces only the ranking/filter metadata (e.g. after a pin or an access), keeping vector and postings. */
  updateDoc(doc: IndexDoc): void {
    if (!this.docs.has(doc.id)) return;
    const user = this.users.get(this.docs.userIdOf(doc.id)!);
    if (user) setSignals(user, doc, false);
    this.docs.setDoc(doc);
    this.observer?.changed(doc.id, true);
  }

  remove(id: string): boolean {
    const userId = this.docs.userIdOf(id);
    if (userId === undefined) return false;
    const user = this.users.get(userId);
    const row = user?.vectors.row(id);
    if (row !== undefined) user!.signals.release(row);
    user?.vectors.remove(id);
    user?.pendingKeywords.write(id, null);
    this.docs.delete(id);
    this.observer?.removed(id);
    return true;
  }

  clear(): void {
    this.docs.clear();
    this.users.clear();
    this.observer?.cleared();
  }

  /**
   * The speakers of `userId`'s turns that `query` names, and the query
   * without their names (search/named-speakers.ts): recall matches the rest
   * and boosts those speakers' turns.
   */
  namedSpeakers(userId: string, query: string): NamedSpeakers {
    const speakers = this.users.get(userId)?.signals.speakers() ?? [];
    return speakers.length === 0 ? { speakers: [], text: query } : namedSpeakers(query, speakers);
  }

  /** Whether `userId` has turns (every turn has a speaker: search/row-signals.ts counts the rows of each). */
  hasTurns(userId: string): boolean {
    return this.users.get(userId)?.signals.speakers().length ? true : false;
  }

  /** Pure dense neighbours of a vector within one user (dedup, chaining, merge checks). */
  nearest(userId: string, vector: Float32Array, k: number, accept?: (doc: IndexDoc) => boolean): { id: string; score: number }[] {
    const user = this.users.get(userId);
    if (!user) return [];
    return user.vectors.topK(vector, k, accept ? (id) => accept(this.docs.get(id)!) : undefined);
  }

  /**
   * The k best memories of one user that pass the filters, by the full score
   * (ranking.ts), exactly: the same ids and scores as scoring every such
   * memory and sorting by score, then id (ties), which no candidate pool can
   * change. Cosines are the matrix's f32 scores (VectorMatrix.topK's); the
   * keyword part is normalised by the best BM25 score among the memories
   * that pass the filters. How: see score-bounds.ts.
   */
  search(
    userId: string,
    query: { vector: Float32Array; text: string },
    options: DocFilter & { k: number; ranking: Ranking; now: number },
  ): IndexHit[] {
    const user = this.users.get(userId);
    const { k, ranking, now } = options;
    if (!user || k <= 0 || user.vectors.size === 0) return [];
    // Which window of the query each row is in (recall's time windows: ranking.windows ranks, options.windows filters).
    const windows = ranking.windows ?? options.windows;
    const marks = windows ? this.windowMarks(user, windows) : undefined;
    const acceptRow = this.acceptRowFor(user, options, marks);
    const accept = this.acceptFor(options, user, acceptRow);
    if (ordersByCosineAlone(ranking) && !marks) {
      const hits = this.byCosineAlone(user, query.vector, k, accept, ranking, now, options);
      if (hits) return hits;
    }

    // With no keyword share in relevance, the keyword part is multiplied by 0: skip BM25.
    const keyword = ranking.denseWeight < 1 ? user.pendingKeywords.query(query.text, { limit: k, accept }) : NO_KEYWORDS;
    const normalise = (raw: number) => (keyword.best > 0 ? raw / keyword.best : 0);
    const bounds = user.vectors.scoreBounds(query.vector);
    const rows = candidateRows({
      ranking,
      now,
      k,
      lo: bounds.lo,
      hi: bounds.hi,
      above: bounds.above,
      signals: user.signals,
      windowed: ranking.windows ? marks : undefined,
      accept: acceptRow,
      // No accepted match: every accepted row's keyword part is 0, which pass 2 assumes.
      keywords:
        keyword.best > 0
          ? {
              best: keyword.hits.flatMap(({ id, score }) => {
                const row = user.vectors.row(id);
                return row === undefined ? [] : [{ row, keyword: normalise(score) }];
              }),
              normalise,
              bestRaw: keyword.best,
              forEach: (above, visit) => keyword.forEach(above, (id, raw) => visit(id, normalise(raw))),
              row: (id) => user.vectors.row(id),
            }
          : undefined,
    });
    const cosines = user.vectors.scoresOf(rows, bounds);
    const hits = rows.map((row, i) => {
      const id = user.vectors.idAt(row);
      return hitAt(user.signals, row, id, cosines[i]!, normalise(keyword.scoreOf(id)), ranking, now, marks, options.windows);
    });
    return firstK(hits, k);
  }

  /**
   * The memories of `userId` inside a query's windows that pass the filters
   * (recall's chronological slice of a time question: recall/time-slice.ts),
   * each with its own time, in no particular order, and scored as `explain`
   * scores them.
   */
  windowMembers(userId: string, query: { vector: Float32Array; text: string }, options: DocFilter & { ranking: Ranking; now: number; windows: TimeWindows }): (IndexHit & { createdAt: number })[] {
    const user = this.users.get(userId);
    if (!user) return [];
    const marks = this.windowMarks(user, options.windows);
    const acceptRow = this.acceptRowFor(user, options, marks);
    const ids: string[] = [];
    for (let row = 0; row < marks.length; row++) if (marks[row] !== 0 && acceptRow(row)) ids.push(user.vectors.idAt(row));
    const createdAt = new Map(ids.map((id) => [id, user.signals.createdAt[user.vectors.row(id)!]!]));
    return this.explain(userId, query, ids, { ...options, windows: options.ranking.windows ? undefined : options.windows }).map((hit) => ({ ...hit, createdAt: createdAt.get(hit.id)! }));
  }

  /**
   * The sessions of `userId`'s memories (their `sessionId`), with how many
   * memories each has and its first and last memory's time, in no particular order.
   */
  sessions(userId: string): SessionSpan[] {
    const user = this.users.get(userId);
    return user ? user.signals.sessions(user.vectors.size) : [];
  }

  /** How many of `userId`'s memories (archived ones aside) are inside each of `windows` (recall drops a window that holds none). */
  countInWindows(userId: string, windows: TimeWindows): number[] {
    const counts = windows.windows.map(() => 0);
    const user = this.users.get(userId);
    if (!user) return counts;
    const { archived, dated } = user.signals;
    const each = windows.windows.map((window) => ({ windows: [window], timeZone: windows.timeZone }));
    this.forEachInWindows(user, windows, (row, window) => {
      if (archived[row] !== 0) return;
      counts[window]!++;
      // The first window it is in is counted; a window after it may hold it too (by its time, or a time its text gives).
      for (let i = window + 1; i < each.length; i++) {
        const times = dated[row] === 1 ? (this.docs.timesOf(user.vectors.idAt(row)) ?? NO_TIMES) : NO_TIMES;
        if (matchWindows(each[i]!, user.signals.createdAt[row]!, this.sessionAt(user, row), times)) counts[i]!++;
      }
    });
    return counts;
  }

  /**
   * For each of `user`'s rows, which window it is in (encodeMatch: 0 for
   * none), from its signals (own time, session) and, for a row whose text
   * gives times, those times (read without building its document).
   */
  private windowMarks(user: UserIndex, windows: TimeWindows): Uint16Array {
    const marks = new Uint16Array(user.vectors.size);
    this.forEachInWindows(user, windows, (row, window, by) => (marks[row] = encodeMatch({ window, by })));
    return marks;
  }

  /** Visits each of `user`'s rows inside `windows` with the first window it is in (matchWindows), reading rows' signals in one pass. */
  private forEachInWindows(user: UserIndex, windows: TimeWindows, visit: (row: number, window: number, by: 'createdAt' | 'mention' | 'session') => void): void {
    const n = user.vectors.size;
    const { createdAt, session, dated } = user.signals;
    const list = windows.windows;
    // Per window, its sessions as codes (a mask), or its bounds.
    const masks = list.map((w) => (w.sessions ? user.signals.sessionNames.map((name, code) => code > 0 && w.sessions!.has(name)) : undefined));
    const from = list.map((w) => w.from);
    const to = list.map((w) => w.to);
    for (let row = 0; row < n; row++) {
      const at = createdAt[row]!;
      const code = session[row]!;
      let found = -1;
      for (let i = 0; i < list.length; i++) {
        const mask = masks[i];
        if (mask ? code !== 0 && mask[code] === true : at >= from[i]! && at < to[i]!) {
          found = i;
          break;
        }
      }
      if (found >= 0) visit(row, found, masks[found] ? 'session' : 'createdAt');
      else if (dated[row] === 1) {
        const match = matchWindows(windows, at, this.sessionAt(user, row), this.docs.timesOf(user.vectors.idAt(row)) ?? NO_TIMES);
        if (match) visit(row, match.window, match.by);
      }
    }
  }

  private sessionAt(user: UserIndex, row: number): string | undefined {
    const code = user.signals.session[row]!;
    return code === 0 ? undefined : user.signals.sessionNames[code];
  }

  /**
   * The full score of the given memories (those of `userId` that pass the
   * filters), bit for bit as `search` scores them (the matrix's own f32
   * kernel): for memories recall ranks by a neighbour
   * (recall/turn-context.ts), so their own parts can still be shown.
   */
  explain(userId: string, query: { vector: Float32Array; text: string }, ids: readonly string[], options: DocFilter & { ranking: Ranking; now: number }): IndexHit[] {
    const user = this.users.get(userId);
    if (!user) return [];
    const accept = this.acceptFor(options);
    const wanted = ids.filter((id) => this.docs.get(id)?.userId === userId && accept(id));
    if (wanted.length === 0) return [];
    const { ranking, now } = options;
    const keyword = ranking.denseWeight < 1 ? user.pendingKeywords.query(query.text, { limit: 1, accept }) : NO_KEYWORDS;
    const cosines = user.vectors.scoresFor(query.vector, wanted.map((id) => user.vectors.row(id)!));
    return wanted.map((id, i) => this.hit(id, cosines[i]!, keyword.best > 0 ? keyword.scoreOf(id) / keyword.best : 0, ranking, now, options));
  }

  /**
   * When the score is a non-decreasing function of the cosine alone, the
   * dense top k + 1 settle the top k unless the (k+1)-th ties the k-th (then
   * an id could decide, and the caller runs the general search): every row
   * outside them scores at most the (k+1)-th.
   */
  private byCosineAlone(user: UserIndex, vector: Float32Array, k: number, accept: (id: string) => boolean, ranking: Ranking, now: number, filter: DocFilter): IndexHit[] | undefined {
    const hits = user.vectors.topK(vector, k + 1, accept).map(({ id, score }) => this.hit(id, score, 0, ranking, now, filter));
    if (hits.length > k && !(hits[k]!.score < hits[k - 1]!.score)) return undefined;
    return firstK(hits, k);
  }

  /**
   * Recall's filter as a test of ids. A filter of what rows' signals hold
   * (the default one, archived memories left out; types, times, sessions,
   * windows) tests the row without building the document: a query tests a
   * hundred or so rows that it does not return, and building their
   * documents (each kept for good) would spend worker CPU and memory on
   * every recall for rows it does not return. `acceptRow` is that test of `user`'s rows, when the caller has it.
   */
  private acceptFor(options: DocFilter, user?: UserIndex, acceptRow?: (row: number) => boolean): (id: string) => boolean {
    if (testsOnlyArchived(options)) return options.includeArchived ? () => true : (id) => this.docs.archivedOf(id) === false;
    if (user && acceptRow && testsOnlyRowSignals(options)) {
      return (id) => {
        const row = user.vectors.row(id);
        return row !== undefined && acceptRow(row);
      };
    }
    const test = compileFilter(options);
    return (id) => test(this.docs.get(id)!);
  }

  /**
   * `accept` as a test of `user`'s rows: a filter of what the rows' signals hold reads them
   * (a vector search tests hundreds of rows), with `marks` the rows' window matches (`windowMarks`).
   */
  private acceptRowFor(user: UserIndex, options: DocFilter, marks: Uint16Array | undefined): (row: number) => boolean {
    if (!testsOnlyRowSignals(options)) {
      const test = compileFilter(options);
      return (row) => test(this.docs.get(user.vectors.idAt(row))!);
    }
    const { includeArchived, types, since, until, sessionIds, windows } = options;
    const { archived, kind, createdAt, session } = user.signals;
    const kinds = types ? KINDS_BY_CODE.map((name) => (types as readonly string[]).includes(name)) : undefined;
    const sessions = sessionIds ? user.signals.sessionNames.map((name, code) => code > 0 && sessionIds.has(name)) : undefined;
    const inWindow = windows ? marks : undefined;
    if (!kinds && since === undefined && until === undefined && !sessions && !inWindow) return includeArchived ? () => true : (row) => archived[row] === 0;
    return (row) =>
      (includeArchived || archived[row] === 0) &&
      (!kinds || kinds[kind[row]!] === true) &&
      (since === undefined || createdAt[row]! >= since) &&
      (until === undefined || createdAt[row]! <= until) &&
      (!sessions || sessions[session[row]!] === true) &&
      (!inWindow || inWindow[row] !== 0);
  }

  private hit(id: string, cosine: number, keyword: number, ranking: Ranking, now: number, filter: DocFilter): IndexHit {
    const doc = this.docs.get(id)!;
    const named = namedBy(ranking, speakerOf(doc));
    const windows = ranking.windows ?? filter.windows;
    const window = windows ? matchWindows(windows, doc.createdAt, sessionOf(doc), doc.times) : undefined;
    const { score, parts } = scoreOf(
      ranking,
      { kind: doc.kind, cosine, keyword, importance: doc.importance, pinned: doc.pinned, dated: doc.times.length > 0, named, touchedAt: doc.touchedAt, window, filterWindows: filter.windows },
      now,
    );
    return { id, kind: doc.kind, score, parts };
  }

  private userIndex(userId: string): UserIndex {
    let user = this.users.get(userId);
    if (!user) {
      const signals = new RowSignals();
      user = {
        vectors: new VectorMatrix(this.dimension, { ...this.matrixOptions, companion: signals }),
        signals,
        pendingKeywords: new PendingKeywords(new KeywordIndex()),
      };
      this.users.set(userId, user);
    }
    return user;
  }
}

const NO_KEYWORDS: KeywordResult = { hits: [], best: 0, scoreOf: () => 0, forEach: () => {} };

/**
 * `MemoryIndex.hit` from the row's signals, which are copies of its
 * document's (setSignals), so the same score without building the document.
 */
function hitAt(signals: RowSignals, row: number, id: string, cosine: number, keyword: number, ranking: Ranking, now: number, marks: Uint16Array | undefined, filterWindows: TimeWindows | undefined): IndexHit {
  const kind = KINDS_BY_CODE[signals.kind[row]!]!;
  const code = signals.speaker[row]!;
  const named = namedBy(ranking, code === 0 ? undefined : signals.speakerNames[code]);
  const window = marks ? decodeMatch(marks[row]!) : undefined;
  const { score, parts } = scoreOf(
    ranking,
    { kind, cosine, keyword, importance: signals.importance[row]!, pinned: signals.pinned[row] === 1, dated: signals.dated[row] === 1, named, touchedAt: signals.touchedAt[row]!, window, filterWindows },
    now,
  );
  return { id, kind, score, parts };
}

/** Copies a document's ranking inputs to its row (the matrix holds its vector already); `fresh`: the row is new. */
function setSignals(user: UserIndex, doc: IndexDoc, fresh: boolean): void {
  const row = user.vectors.row(doc.id);
  if (row === undefined) return;
  const { kind, importance, touchedAt, pinned, archived, createdAt } = doc;
  user.signals.set(row, { kind, importance, touchedAt, pinned, archived, dated: doc.times.length > 0, speaker: speakerOf(doc), createdAt, session: sessionOf(doc) }, fresh);
}

/** The k best hits by score, ties by id: the one order every path returns. */
function firstK(hits: IndexHit[], k: number): IndexHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, k);
}
