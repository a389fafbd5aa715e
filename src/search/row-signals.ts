import type { IndexDoc } from './index-doc.js';

/** A row's type as a small code, so a search can look its multiplier up in an array. */
export const KIND_CODES: Readonly<Record<IndexDoc['kind'], number>> = { fact: 0, episode: 1, task: 2, turn: 3 };
/** The types in code order. */
export const KINDS_BY_CODE: readonly IndexDoc['kind'][] = ['fact', 'episode', 'task', 'turn'];

/** What `RowSignals.set` copies from a document. */
export interface RowSignal {
  kind: IndexDoc['kind'];
  importance: number;
  touchedAt: number;
  pinned: boolean;
  archived: boolean;
  dated: boolean;
  speaker: string | undefined;
  createdAt: number;
  session: string | undefined;
}

/** One session of a user's memories (their `sessionId`): how many memories, and the first and last of their times. */
export interface SessionSpan {
  id: string;
  memories: number;
  first: number;
  last: number;
}

/**
 * The query-independent ranking inputs of every row of one user's matrix
 * (type, importance, pinned, last touch, dated, speaker), its archived flag,
 * its own time and session (what a time window of a query matches), in typed arrays indexed like the
 * matrix's rows: the matrix moves them with its rows (it is their
 * `RowCompanion`). A search reads them to bound each row's final score
 * (score-bounds.ts) without building the row's document, which for rows
 * loaded from the snapshot would cost an object per row and per query.
 *
 * The values are copies of the documents' own, written by the index whenever
 * a document is written, so the bound and the exact score see the same numbers.
 */
export class RowSignals {
  kind = new Uint8Array(0);
  importance = new Float64Array(0);
  touchedAt = new Float64Array(0);
  /** 1 when pinned, else 0: the value the score adds `pinned` weight times. */
  pinned = new Uint8Array(0);
  /** 1 when archived, else 0: recall's default filter, read without the row's id or document. */
  archived = new Uint8Array(0);
  /** 1 when its text gives a relative time (IndexDoc.times not empty), else 0: a question about time multiplies its score. */
  dated = new Uint8Array(0);
  /** Its speaker's code in `speakerNames` (a turn's; 0 for no speaker): a query naming that speaker multiplies its score. */
  speaker = new Uint32Array(0);
  /** Its memory's own time (`createdAt`). */
  createdAt = new Float64Array(0);
  /** Its session's code in `sessionNames` (0 for none): recall's session filters and session windows read it. */
  session = new Uint32Array(0);
  /** The speakers rows have had, by code (code 0 is no speaker); `speakerRows[code]` is how many live rows have it. */
  readonly speakerNames: string[] = [''];
  readonly speakerRows: number[] = [0];
  private readonly speakerCodes = new Map<string, number>();
  /** The sessions rows have had, by code (code 0 is none), with their live rows and the first and last of their times. */
  readonly sessionNames: string[] = [''];
  private readonly sessionRows: number[] = [0];
  private readonly sessionFirst: number[] = [0];
  private readonly sessionLast: number[] = [0];
  /** A session whose first or last time left (a row removed or rewritten): recomputed from the rows when asked. */
  private readonly sessionStale: boolean[] = [false];
  private readonly sessionCodes = new Map<string, number>();
  /**
   * At least every stored row's importance (it only grows: a row that leaves
   * or lowers its importance leaves it as it was, which keeps it a bound).
   */
  maxImportance = 0;
  /** 1 once any row was pinned (a bound, as `maxImportance`). */
  maxPinned = 0;
  /** 1 once any row was dated (a bound, as `maxPinned`). */
  maxDated = 0;

  reserve(capacity: number): void {
    if (capacity <= this.kind.length) return;
    this.kind = grown(this.kind, capacity);
    this.importance = grown(this.importance, capacity);
    this.touchedAt = grown(this.touchedAt, capacity);
    this.pinned = grown(this.pinned, capacity);
    this.archived = grown(this.archived, capacity);
    this.dated = grown(this.dated, capacity);
    this.speaker = grown(this.speaker, capacity);
    this.createdAt = grown(this.createdAt, capacity);
    this.session = grown(this.session, capacity);
  }

  move(from: number, to: number): void {
    this.kind[to] = this.kind[from]!;
    this.importance[to] = this.importance[from]!;
    this.touchedAt[to] = this.touchedAt[from]!;
    this.pinned[to] = this.pinned[from]!;
    this.archived[to] = this.archived[from]!;
    this.dated[to] = this.dated[from]!;
    this.speaker[to] = this.speaker[from]!;
    this.createdAt[to] = this.createdAt[from]!;
    this.session[to] = this.session[from]!;
    // The row moved out: its slot holds no session (sessions() reads every slot's).
    this.session[from] = 0;
  }

  /**
   * Writes a row's signals. `fresh`: the row holds no memory yet (appended),
   * so its old speaker and session, if any, are a removed row's and were released already.
   */
  set(row: number, signal: RowSignal, fresh: boolean): void {
    if (!fresh) this.release(row);
    const { kind, importance, touchedAt, pinned, archived, dated, speaker, createdAt, session } = signal;
    const code = speaker === undefined ? 0 : this.codeOf(speaker);
    this.speaker[row] = code;
    this.speakerRows[code]!++;
    this.kind[row] = KIND_CODES[kind];
    this.importance[row] = importance;
    this.touchedAt[row] = touchedAt;
    this.pinned[row] = pinned ? 1 : 0;
    this.archived[row] = archived ? 1 : 0;
    this.dated[row] = dated ? 1 : 0;
    this.createdAt[row] = createdAt;
    const s = session === undefined ? 0 : this.sessionCodeOf(session, true)!;
    this.session[row] = s;
    if (s !== 0) {
      if (this.sessionRows[s]!++ === 0) {
        this.sessionFirst[s] = createdAt;
        this.sessionLast[s] = createdAt;
        this.sessionStale[s] = false;
      } else {
        if (createdAt < this.sessionFirst[s]!) this.sessionFirst[s] = createdAt;
        if (createdAt > this.sessionLast[s]!) this.sessionLast[s] = createdAt;
      }
    }
    if (importance > this.maxImportance) this.maxImportance = importance;
    if (pinned) this.maxPinned = 1;
    if (dated) this.maxDated = 1;
  }

  /** Forgets a row's speaker and session, before the row is removed or rewritten. */
  release(row: number): void {
    this.speakerRows[this.speaker[row]!]!--;
    const s = this.session[row]!;
    if (s !== 0) {
      this.sessionRows[s]!--;
      const at = this.createdAt[row]!;
      if (at <= this.sessionFirst[s]! || at >= this.sessionLast[s]!) this.sessionStale[s] = true;
      this.session[row] = 0;
    }
  }

  /** The code of a session (undefined when no row ever had it; `add` gives it one). */
  sessionCodeOf(session: string, add = false): number | undefined {
    let code = this.sessionCodes.get(session);
    if (code === undefined && add) {
      code = this.sessionNames.push(session) - 1;
      this.sessionCodes.set(session, code);
      this.sessionRows.push(0);
      this.sessionFirst.push(0);
      this.sessionLast.push(0);
      this.sessionStale.push(false);
    }
    return code;
  }

  /**
   * The sessions live rows have, with their first and last times. A session
   * whose first or last row left is recomputed from the rows (`rows`: the
   * matrix's row count; slots past it hold no session).
   */
  sessions(rows: number): SessionSpan[] {
    const stale = this.sessionStale.some((s, code) => s && this.sessionRows[code]! > 0);
    if (stale) {
      const first = new Map<number, number>();
      const last = new Map<number, number>();
      for (let row = 0; row < rows; row++) {
        const s = this.session[row]!;
        if (s === 0 || !this.sessionStale[s]) continue;
        const at = this.createdAt[row]!;
        if (!(at >= (first.get(s) ?? Infinity))) first.set(s, at);
        if (!(at <= (last.get(s) ?? -Infinity))) last.set(s, at);
      }
      for (const [s, at] of first) {
        this.sessionFirst[s] = at;
        this.sessionLast[s] = last.get(s)!;
        this.sessionStale[s] = false;
      }
    }
    const out: SessionSpan[] = [];
    for (let code = 1; code < this.sessionNames.length; code++) {
      if (this.sessionRows[code]! > 0) out.push({ id: this.sessionNames[code]!, memories: this.sessionRows[code]!, first: this.sessionFirst[code]!, last: this.sessionLast[code]! });
    }
    return out;
  }

  /** The speakers that live rows have. */
  speakers(): string[] {
    return this.speakerNames.filter((name, code) => code > 0 && this.speakerRows[code]! > 0);
  }

  /** For each code, 1 when its speaker is among `names`, else 0 (a search's lookup table). */
  speakerMask(names: ReadonlySet<string>): Uint8Array {
    const mask = new Uint8Array(this.speakerNames.length);
    for (const name of names) {
      const code = this.speakerCodes.get(name);
      if (code !== undefined) mask[code] = 1;
    }
    return mask;
  }

  private codeOf(speaker: string): number {
    let code = this.speakerCodes.get(speaker);
    if (code === undefined) {
      code = this.speakerNames.push(speaker) - 1;
      this.speakerCodes.set(speaker, code);
      this.speakerRows.push(0);
    }
    return code;
  }
}

function grown<T extends Uint8Array | Uint32Array | Float64Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (n: number) => T)(capacity);
  next.set(array);
  return next;
}
