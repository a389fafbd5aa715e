import type * as z from 'zod/mini';
import type { MemoryType } from '../schema/common.js';
import type { IndexDoc } from '../search/index-doc.js';

/**
 * A kind of record that has one vector per record (in the vector blocks,
 * under `type`) and takes its ids from the id space the memories and tasks
 * share (store/unique-ids.ts): every memory kind, and tasks. The commit path
 * writes such a record and its vector in one call (store/commit.ts).
 */
export interface VectoredKind<R extends StoredRecord = StoredRecord> {
  /** The `kind` of its vectors in the vector blocks; for a memory, also the records' `type` ('fact'). */
  readonly type: string;
  /** Its IndexedDB table ('facts'). */
  readonly table: string;
  /** One record, as a message names it ('a fact'). */
  readonly label: string;
  /** Whether a record is searchable: one that is not (a retired fact, a running task) keeps no vector. */
  searchable(record: R): boolean;
}

/** What every record of a vectored kind has. */
export interface StoredRecord {
  id: string;
  userId: string;
}

/** What every memory record has, whatever its kind: the fields the shared machinery reads. */
export interface StoredMemory extends StoredRecord {
  /** Its kind's `type`. */
  type: string;
  text: string;
  createdAt: number;
  lastAccessedAt: number;
}

/**
 * A kind of memory: everything engram's shared machinery needs to store,
 * index, announce, replay, export, import and forget its records. The
 * registry (registry.ts) lists them, and every place that must see every
 * kind reads it there, as idb's `database-extras.ts` derives every shortcut
 * from one list of method names.
 */
export interface MemoryKind<R extends StoredMemory = StoredMemory> extends VectoredKind<R> {
  readonly type: R['type'];
  /** The stored record: import validates each line against it (and sync each change). */
  readonly schema: z.ZodMiniType<R>;
  /**
   * Its table's Dexie indexes, primary key (`id`) first. A kind's table must
   * answer `where('userId')` (a `userId` index, or a compound one it leads),
   * as export and forget ask it.
   */
  readonly indexes: string;
  /** The text it is embedded and keyword-indexed by. */
  indexedText(record: R): string;
  /**
   * The kind of memory its documents in the search index are ranked and
   * filtered as (`doc.kind`, recall's `types`): its own `type` for engram's
   * kinds; a kind registered beyond them ranks as one of those. Recall reads
   * a hit's record from the tables of the kinds searched as the hit's kind.
   */
  readonly searchAs: MemoryType;
  /** Its document in the search index (`kind` is `searchAs`); null for a record that must not be found. */
  indexDoc(record: R): IndexDoc | null;
  /** A version kept only as history, one a newer version replaced (a fact's `supersededBy`), where the kind keeps such versions: `engram stats` counts them apart. */
  retired?(record: R): boolean;
  /** The field naming the conversation a record belongs to, where the kind has one. */
  readonly sessionField?: string;
  /**
   * The field giving a record's place among its user's records of this kind,
   * where the kind has one (a turn's `seq`). Its table then indexes
   * `[userId+<field>]`, and an import places its records after the stored
   * ones (portability/place-imported.ts). Its value is a non-negative integer.
   */
  readonly sequenceField?: string;
}

/** Builds a memory kind; `searchable` follows from `indexDoc`, and `searchAs` is its `type` unless given. */
export function defineMemoryKind<R extends StoredMemory, T extends string = string>(
  kind: Omit<MemoryKind<R>, 'searchable' | 'searchAs' | 'table'> & { table: T; searchAs?: MemoryType },
): MemoryKind<R> & { readonly table: T } {
  return { ...kind, searchAs: kind.searchAs ?? (kind.type as MemoryType), searchable: (record) => kind.indexDoc(record) !== null };
}
