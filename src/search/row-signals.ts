import type { IndexDoc } from './index-doc.js';

/** A row's type as a small code, so a search can look its multiplier up in an array. */
export const KIND_CODES: Readonly<Record<IndexDoc['kind'], number>> = { fact: 0, episode: 1, task: 2, turn: 3 };
/** The types in code order. */
export const KINDS_BY_CODE: readonly IndexDoc['kind'][] = ['fact', 'episode', 'task', 'turn'];

/**
 * The query-independent ranking inputs of every row of one user's matrix
 * (type, importance, pinned, last touch, dated, speaker) and its archived flag, in typed arrays indexed like the
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
  /** The speakers rows have had, by code (code 0 is no speaker); `speakerRows[code]` is how many live rows have it. */
  readonly speakerNames: string[] = [''];
  readonly speakerRows: number[] = [0];
  private readonly speakerCodes = new Map<string, number>();
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
  }

  move(from: number, to: number): void {
    this.kind[to] = this.kind[from]!;
    this.importance[to] = this.importance[from]!;
    this.touchedAt[to] = this.touchedAt[from]!;
    this.pinned[to] = this.pinned[from]!;
    this.archived[to] = this.archived[from]!;
    this.dated[to] = this.dated[from]!;
    this.speaker[to] = this.speaker[from]!;
  }

  /**
   * Writes a row's signals. `fresh`: the row holds no memory yet (appended),
   * so its old speaker, if any, is a removed row's and was released already.
   */
  set(row: number, kind: IndexDoc['kind'], importance: number, touchedAt: number, pinned: boolean, archived: boolean, dated: boolean, speaker: string | undefined, fresh: boolean): void {
    if (!fresh) this.release(row);
    const code = speaker === undefined ? 0 : this.codeOf(speaker);
    this.speaker[row] = code;
    this.speakerRows[code]!++;
    this.kind[row] = KIND_CODES[kind];
    this.importance[row] = importance;
    this.touchedAt[row] = touchedAt;
    this.pinned[row] = pinned ? 1 : 0;
    this.archived[row] = archived ? 1 : 0;
    this.dated[row] = dated ? 1 : 0;
    if (importance > this.maxImportance) this.maxImportance = importance;
    if (pinned) this.maxPinned = 1;
    if (dated) this.maxDated = 1;
  }

  /** Forgets a row's speaker, before the row is removed or rewritten. */
  release(row: number): void {
    this.speakerRows[this.speaker[row]!]!--;
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
