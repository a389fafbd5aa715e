import type { TimeMention } from '../schema/time-mention.js';
import { NO_TIMES, type IndexDoc } from './index-doc.js';
import { KINDS_BY_CODE } from './row-signals.js';

/**
 * Index documents stored column-wise, as the index snapshot keeps them
 * (index-sync/snapshot-page.ts) and as the index holds a loaded page until a
 * document is asked for (search/doc-table.ts). Reading a snapshot back is then
 * a handful of typed arrays and one short string table per block, which
 * structured clone restores in bulk, instead of thousands of small objects
 * with nested `tags` and `fields` that it restores one property at a time;
 * and a document is built only when a filter, the ranking or a write needs it.
 *
 * The round trip is exact: `readColumns(encodeDocs(docs)).doc(i)` deep-equals
 * `docs[i]` (key order included), so filters and ranking see the same
 * documents. Field values that are not strings, numbers, booleans, null or
 * undefined (arrays such as `participants`, nested metadata) are kept as they are.
 */
export interface DocColumns {
  ids: string[];
  /** Every distinct string the columns below refer to by index: user ids, kinds, tags, field keys and string values. */
  strings: string[];
  userId: Uint32Array;
  kind: Uint32Array;
  createdAt: Float64Array;
  touchedAt: Float64Array;
  importance: Float64Array;
  /** Bit 0: pinned; bit 1: archived; bit 2: gives relative times (a row of `timedRows`). */
  flags: Uint8Array;
  /** The documents with `times`, ascending, and their times (few: most texts give none). */
  timedRows: Uint32Array;
  times: TimeMention[][];
  /** Document i's tags are `tags[tagStart[i]]` up to `tags[tagStart[i + 1]]` (string indexes). */
  tagStart: Uint32Array;
  tags: Uint32Array;
  /** Distinct key lists of `fields`, in their order (string indexes); a few per block. */
  shapes: number[][];
  /** Document i's fields have the keys `shapes[shape[i]]`. */
  shape: Uint32Array;
  /** Every document's field values, in key order: `valueKind[j]` tells how to read `value[j]` (see `KIND`). */
  valueKind: Uint8Array;
  value: Float64Array;
  /** Values of kind `other`, as they are. */
  others: unknown[];
}

/** How `value[j]` reads: a string index, the number itself, a constant, or an index into `others`. */
const KIND = { string: 0, number: 1, true: 2, false: 3, null: 4, undefined: 5, other: 6 } as const;

const PINNED = 1;
const ARCHIVED = 2;
const DATED = 4;

export function encodeDocs(docs: readonly IndexDoc[]): DocColumns {
  const n = docs.length;
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const intern = (s: string) => {
    let i = stringIndex.get(s);
    if (i === undefined) stringIndex.set(s, (i = strings.push(s) - 1));
    return i;
  };
  const shapes: number[][] = [];
  const shapeIndex = new Map<string, number>();
  const tags: number[] = [];
  const valueKind: number[] = [];
  const value: number[] = [];
  const others: unknown[] = [];
  const timedRows: number[] = [];
  const times: TimeMention[][] = [];
  const out = {
    ids: docs.map((d) => d.id),
    userId: new Uint32Array(n),
    kind: new Uint32Array(n),
    createdAt: new Float64Array(n),
    touchedAt: new Float64Array(n),
    importance: new Float64Array(n),
    flags: new Uint8Array(n),
    tagStart: new Uint32Array(n + 1),
    shape: new Uint32Array(n),
  };
  docs.forEach((doc, i) => {
    out.userId[i] = intern(doc.userId);
    out.kind[i] = intern(doc.kind);
    out.createdAt[i] = doc.createdAt;
    out.touchedAt[i] = doc.touchedAt;
    out.importance[i] = doc.importance;
    out.flags[i] = (doc.pinned ? PINNED : 0) | (doc.archived ? ARCHIVED : 0) | (doc.times.length > 0 ? DATED : 0);
    if (doc.times.length > 0) {
      timedRows.push(i);
      times.push(doc.times.map(({ text, grain, offset }) => ({ text, grain, offset })));
    }
    for (const tag of doc.tags) tags.push(intern(tag));
    out.tagStart[i + 1] = tags.length;
    const keys = Object.keys(doc.fields).map(intern);
    const signature = keys.join(',');
    let shape = shapeIndex.get(signature);
    if (shape === undefined) shapeIndex.set(signature, (shape = shapes.push(keys) - 1));
    out.shape[i] = shape;
    for (const key of Object.keys(doc.fields)) {
      const v = doc.fields[key];
      const kind = kindOf(v);
      valueKind.push(kind);
      value.push(kind === KIND.string ? intern(v as string) : kind === KIND.number ? (v as number) : kind === KIND.other ? others.push(v) - 1 : 0);
    }
  });
  return {
    ...out,
    strings,
    tags: Uint32Array.from(tags),
    shapes,
    valueKind: Uint8Array.from(valueKind),
    value: Float64Array.from(value),
    others,
    timedRows: Uint32Array.from(timedRows),
    times,
  };
}

/** Reads documents out of columns that `readColumns` checked: any row, in any order, each built on demand. */
export interface DocColumnsReader {
  readonly size: number;
  readonly ids: readonly string[];
  userId(row: number): string;
  /** A document's ranking inputs, without building it (search/row-signals.ts). */
  kind(row: number): IndexDoc['kind'];
  importance(row: number): number;
  touchedAt(row: number): number;
  pinned(row: number): boolean;
  /** What recall's default filter reads (a query that filters on nothing else tests it without building the document). */
  archived(row: number): boolean;
  dated(row: number): boolean;
  /** As `speakerOf(doc(row))`. */
  speaker(row: number): string | undefined;
  createdAt(row: number): number;
  /** As `sessionOf(doc(row))`. */
  session(row: number): string | undefined;
  /** As `doc(row).times`, without building the document (the very array: not to be changed). */
  times(row: number): readonly TimeMention[];
  doc(row: number): IndexDoc;
}

/**
 * A reader over `c`, or null when the columns do not fit together (a damaged
 * snapshot, which is then ignored): every length and index is checked here,
 * once, so that building any document later cannot fail.
 */
export function readColumns(c: DocColumns): DocColumnsReader | null {
  const n = c.ids.length;
  const s = c.strings;
  const kinds = s.map((kind) => KINDS.has(kind));
  if (
    [c.userId, c.kind, c.createdAt, c.touchedAt, c.importance, c.flags, c.shape].some((column) => column.length !== n) ||
    c.tagStart.length !== n + 1 ||
    c.tagStart[0] !== 0 ||
    c.tagStart[n] !== c.tags.length ||
    c.valueKind.length !== c.value.length ||
    !c.ids.every((id) => typeof id === 'string') ||
    !s.every((string) => typeof string === 'string') ||
    c.tags.some((t) => t >= s.length) ||
    c.shapes.some((keys) => keys.some((k) => !(k < s.length)))
  ) {
    return null;
  }
  // Where each document's field values start (documents have as many as their shape has keys).
  const valueStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const keys = c.shapes[c.shape[i]!];
    if (!(c.userId[i]! < s.length) || !kinds[c.kind[i]!] || !keys || c.tagStart[i]! > c.tagStart[i + 1]!) return null;
    valueStart[i + 1] = valueStart[i]! + keys.length;
  }
  if (valueStart[n] !== c.value.length) return null;
  // Rows with times: ascending, each flagged, and every flagged row among them; each time well formed.
  const timesAt = new Map<number, readonly TimeMention[]>();
  if (!(c.timedRows instanceof Uint32Array) || !Array.isArray(c.times) || c.timedRows.length !== c.times.length) return null;
  for (let t = 0; t < c.timedRows.length; t++) {
    const row = c.timedRows[t]!;
    const times = c.times[t];
    if (!(row < n) || (t > 0 && !(row > c.timedRows[t - 1]!)) || !(c.flags[row]! & DATED)) return null;
    if (!Array.isArray(times) || times.length === 0 || !times.every(isTimeMention)) return null;
    timesAt.set(row, times);
  }
  for (let i = 0; i < n; i++) if (c.flags[i]! & DATED && !timesAt.has(i)) return null;
  for (let j = 0; j < c.value.length; j++) {
    const kind = c.valueKind[j]!;
    const v = c.value[j]!;
    const index = Number.isInteger(v) && v >= 0;
    if (kind > KIND.other || (kind === KIND.string && !(index && v < s.length)) || (kind === KIND.other && !(index && v < c.others.length))) return null;
  }
  // Where each shape keeps the `speaker` field, if it has one (turns' documents do).
  const speakerKey = s.indexOf('speaker');
  const speakerAt = c.shapes.map((keys) => keys.indexOf(speakerKey));
  const turn = s.indexOf('turn');
  // And the `sessionId` field, which every kind of memory has.
  const sessionKey = s.indexOf('sessionId');
  const sessionAt = c.shapes.map((keys) => keys.indexOf(sessionKey));
  return {
    size: n,
    ids: c.ids,
    userId: (row) => s[c.userId[row]!]!,
    kind: (row) => s[c.kind[row]!]! as IndexDoc['kind'],
    importance: (row) => c.importance[row]!,
    touchedAt: (row) => c.touchedAt[row]!,
    pinned: (row) => (c.flags[row]! & PINNED) !== 0,
    archived: (row) => (c.flags[row]! & ARCHIVED) !== 0,
    dated: (row) => (c.flags[row]! & DATED) !== 0,
    speaker(row) {
      const at = speakerAt[c.shape[row]!]!;
      if (c.kind[row] !== turn || speakerKey < 0 || at < 0) return undefined;
      const j = valueStart[row]! + at;
      return c.valueKind[j] === KIND.string ? s[c.value[j]!] : undefined;
    },
    createdAt: (row) => c.createdAt[row]!,
    session(row) {
      const at = sessionAt[c.shape[row]!]!;
      if (sessionKey < 0 || at < 0) return undefined;
      const j = valueStart[row]! + at;
      return c.valueKind[j] === KIND.string ? s[c.value[j]!] : undefined;
    },
    times: (row) => timesAt.get(row) ?? NO_TIMES,
    doc(row) {
      const tags: string[] = [];
      for (let t = c.tagStart[row]!; t < c.tagStart[row + 1]!; t++) tags.push(s[c.tags[t]!]!);
      const fields: Record<string, unknown> = {};
      let j = valueStart[row]!;
      for (const k of c.shapes[c.shape[row]!]!) {
        const v = valueOf(c, j++);
        const key = s[k]!;
        // A key named "__proto__" is an own property of the original (structured clone kept it so): keep it one.
        if (key === '__proto__') Object.defineProperty(fields, key, { value: v, enumerable: true, writable: true, configurable: true });
        else fields[key] = v;
      }
      // The same property order as indexDocOf, so these documents share one hidden class with the ones built from records.
      return {
        id: c.ids[row]!,
        userId: s[c.userId[row]!]!,
        kind: s[c.kind[row]!]! as IndexDoc['kind'],
        createdAt: c.createdAt[row]!,
        touchedAt: c.touchedAt[row]!,
        tags,
        importance: c.importance[row]!,
        pinned: (c.flags[row]! & PINNED) !== 0,
        archived: (c.flags[row]! & ARCHIVED) !== 0,
        times: timesAt.get(row)?.map((time) => ({ ...time })) ?? NO_TIMES,
        fields,
      };
    },
  };
}

/** The document kinds a snapshot page may hold (the ranking's own list, so a new memory type cannot be left out here). */
const KINDS: ReadonlySet<string> = new Set<IndexDoc['kind']>(KINDS_BY_CODE);

const GRAINS: ReadonlySet<unknown> = new Set<TimeMention['grain']>(['day', 'week', 'month', 'year']);

/** The shape of a TimeMention (schema/time-mention.ts), checked without zod: the engine reads these at every open. */
function isTimeMention(t: unknown): t is TimeMention {
  if (typeof t !== 'object' || t === null) return false;
  const { text, grain, offset } = t as Record<string, unknown>;
  return typeof text === 'string' && text.length > 0 && text.length <= 100 && GRAINS.has(grain) && Number.isInteger(offset) && Math.abs(offset as number) <= 100_000;
}

function kindOf(v: unknown): number {
  if (typeof v === 'string') return KIND.string;
  if (typeof v === 'number') return KIND.number;
  if (v === true) return KIND.true;
  if (v === false) return KIND.false;
  if (v === null) return KIND.null;
  if (v === undefined) return KIND.undefined;
  return KIND.other;
}

/** Value j of the columns (checked by `readColumns`). */
function valueOf(c: DocColumns, j: number): unknown {
  const v = c.value[j]!;
  switch (c.valueKind[j]) {
    case KIND.string:
      return c.strings[v];
    case KIND.number:
      return v;
    case KIND.true:
      return true;
    case KIND.false:
      return false;
    case KIND.null:
      return null;
    case KIND.undefined:
      return undefined;
    default:
      return c.others[v];
  }
}
