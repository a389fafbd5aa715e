import type { MemoryType } from '../schema/common.js';
import type { DocFilter } from './filters.js';
import { acceptIdFor, acceptRowFor } from './filter-tests.js';
import { DocTable } from './doc-table.js';
import { sessionOf, speakerOf, type IndexDoc } from './index-doc.js';
import type { KeywordResult } from './keyword-query.js';
import { namedSpeakers, type NamedSpeakers } from './named-speakers.js';
import { namedBy, ordersByCosineAlone, scoreOf, type Ranking, type ScoreParts } from './ranking.js';
import { KINDS_BY_CODE, type RowSignals, type SessionSpan } from './row-signals.js';
import { decodeMatch, matchWindows, type TimeWindows } from './time-windows.js';
import { countInWindows, windowMarks } from './row-windows.js';
import { candidateRows } from './score-bounds.js';
import { newUserIndex, setSignals, type UserIndex } from './user-index.js';
import type { VectorMatrixOptions } from './vector-matrix.js';

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
 * What the index loader (index-sync/index-loader.ts) works on: the tables
 * behind a `MemoryIndex`, and its observer, so bulk loads, replay and
 * keyword warm-up live apart from the search core.
 */
export interface IndexParts {
  readonly dimension: number;
  readonly docs: DocTable;
  readonly users: ReadonlyMap<string, UserIndex>;
  /** `userId`'s slice, made empty when it has none yet. */
  userIndex(userId: string): UserIndex;
  /** The observer of the moment (`reportChangesTo`), or no one. */
  readonly report: IndexObserver;
  remove(id: string): boolean;
  updateDoc(doc: IndexDoc): void;
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

  /** The tables the loader works on (index-sync/index-loader.ts). */
  parts(): IndexParts {
    const observer = (): IndexObserver | undefined => this.observer;
    return {
      dimension: this.dimension,
      docs: this.docs,
      users: this.users,
      userIndex: (userId) => this.userIndex(userId),
      report: {
        changed: (id, fieldsOnly) => observer()?.changed(id, fieldsOnly),
        removed: (id) => observer()?.removed(id),
        cleared: () => observer()?.cleared(),
      },
      remove: (id) => this.remove(id),
      updateDoc: (doc) => this.updateDoc(doc),
    };
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
    const marks = windows ? windowMarks(user, this.docs, windows) : undefined;
    const acceptRow = acceptRowFor(user, this.docs, options, marks);
    const accept = acceptIdFor(this.docs, options, user, acceptRow);
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
    const marks = windowMarks(user, this.docs, options.windows);
    const acceptRow = acceptRowFor(user, this.docs, options, marks);
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
    const user = this.users.get(userId);
    return user ? countInWindows(user, this.docs, windows) : windows.windows.map(() => 0);
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
    const accept = acceptIdFor(this.docs, options);
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

  private hit(id: string, cosine: number, keyword: number, ranking: Ranking, now: number, filter: DocFilter): IndexHit {
    const doc = this.docs.get(id)!;
    const named = namedBy(ranking, speakerOf(doc));
    const windows = ranking.windows ?? filter.windows;
    const window = windows ? matchWindows(windows, doc.createdAt, sessionOf(doc), doc.times) : undefined;
    return scoredHit(id, ranking, { kind: doc.kind, cosine, keyword, importance: doc.importance, pinned: doc.pinned, dated: doc.times.length > 0, named, touchedAt: doc.touchedAt, window, filterWindows: filter.windows }, now);
  }

  private userIndex(userId: string): UserIndex {
    let user = this.users.get(userId);
    if (!user) {
      user = newUserIndex(this.dimension, this.matrixOptions, (id) => this.docs.loadedAt(id));
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
  return scoredHit(id, ranking, { kind, cosine, keyword, importance: signals.importance[row]!, pinned: signals.pinned[row] === 1, dated: signals.dated[row] === 1, named, touchedAt: signals.touchedAt[row]!, window, filterWindows }, now);
}

/** The one scoring path: `MemoryIndex.hit` (from a document) and `hitAt` (from a row's signals) both end here. */
function scoredHit(id: string, ranking: Ranking, inputs: Parameters<typeof scoreOf>[1], now: number): IndexHit {
  const { score, parts } = scoreOf(ranking, inputs, now);
  return { id, kind: inputs.kind, score, parts };
}

/** The k best hits by score, ties by id: the one order every path returns. */
function firstK(hits: IndexHit[], k: number): IndexHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, k);
}
