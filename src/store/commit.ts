import Dexie, { type Transaction } from 'dexie';
import { ValidationError } from '../errors.js';
import type { StoredRecord, VectoredKind } from '../memories/registry.js';
import type { EngramEvent } from '../telemetry/events.js';
import type { RowChange } from './change-feed.js';
import type { EngramDatabase } from './database.js';
import { storedRecord } from './read-record.js';
import { toStorageError } from './transaction-errors.js';
import { findIdConflict, idSpaceNames, idsWritten, withIdSpace } from './unique-ids.js';
import { deleteVectors, putVectors } from './vector-blocks.js';

/** A table of the database, by name. */
export type TableName = {
  [K in keyof EngramDatabase]: EngramDatabase[K] extends Dexie.Table ? K : never;
}[keyof EngramDatabase];

/**
 * What a commit's body declares it writes: kinds of records with vectors
 * (a memory kind or tasks: their table and the vector blocks), and the
 * other tables by name (`vectorBlocks` alone: vectors re-embedded). The transaction's tables follow from it, and the
 * scope refuses a kind or an audit row the body did not declare.
 */
export type CommitPart = VectoredKind<never> | TableName;

/** The typed events a write may report besides `change` (which the change feed announces by itself). */
export type WriteEvent = Exclude<EngramEvent, { type: 'change' }>;

/** The write events kept as audit rows too (`events`, by user): all but sync's status. */
export type AuditedEvent = Extract<WriteEvent, { userId: string }>;

/** The vectors of records written together: by position (undefined: none given), or by id. */
export type RecordVectors = readonly (Float32Array | undefined)[] | ReadonlyMap<string, Float32Array>;

/** What a commit's body can do besides plain reads and writes: each write here happens, and each event is told, only if the transaction commits. */
export interface CommitScope {
  /**
   * Puts records of a declared kind, each with its vector: the one given
   * (replacing any stored one), none for a record that is not searchable
   * (its stored one goes), else the one it has. `mayExist`: the ids that
   * can hold a vector already (default: all); ids known to be new need no
   * lookup, which keeps a bulk insert at one request per vector block.
   * `drawnIds`: ids this call drew from newId() (random UUIDs) for these
   * records; no row of another kind can hold one, so the id-space check
   * skips them and reads nothing for them.
   */
  put<R extends StoredRecord>(kind: VectoredKind<R>, records: readonly R[], vectors?: RecordVectors, options?: { mayExist?: readonly string[]; drawnIds?: readonly string[] }): Promise<void>;
  /** Deletes records of a declared kind, with their vectors. */
  remove(kind: VectoredKind<never>, ids: readonly string[]): Promise<void>;
  /** The stored record of a kind, or NotFoundError. */
  get<R extends StoredRecord>(kind: VectoredKind<R>, id: string): Promise<R>;
  /** Keeps `event` as an audit row (`events`, which the body declares) written `at`, and emits it once committed. */
  audit(event: AuditedEvent, at: number): Promise<void>;
  /** A typed event (dedup, eviction, ...) to emit once the transaction has committed. */
  emit(event: WriteEvent): void;
  /** Work to start once the transaction has committed (e.g. scheduling the job it queued). */
  afterCommit(run: () => void): void;
}

export interface CommitOptions {
  /**
   * Access-time bookkeeping: the indexes mirror it, but no `change` event or
   * cross-tab signal is sent. It only rewrites stored rows under their own
   * ids, so it runs over just the tables it declares (not the whole id space,
   * which the id check reads): reads of the other tables do not queue behind it.
   */
  quiet?: boolean;
  /**
   * Rows (`table\u0000key`) this commit applies from another replica: the
   * hook does not capture them as this device's changes, so they are not
   * pushed back (replication/capture.ts).
   */
  remote?: ReadonlySet<string>;
}

/**
 * Work that runs inside every non-quiet commit's transaction, after its
 * body, over the rows it wrote: sync's outbox (replication/capture.ts).
 * `tables` join the transaction of any commit over one of `when`.
 */
export interface CommitHook {
  tables: readonly string[];
  when: readonly string[];
  run(tx: Transaction, written: readonly RowChange[], options: CommitOptions): Promise<void>;
}

/**
 * The one way anything is written: `commit(operation, parts, body)` runs
 * `body` in one readwrite transaction over the tables of `parts` (all or
 * nothing), turns any failure into a typed EngramError naming `operation`,
 * and after the commit emits the body's events and runs its after-commit work.
 *
 * It does not update the indexes or announce the change itself: the change
 * feed (store/change-feed.ts) sees every row the transaction wrote and, once
 * it commits, hands them to index-sync/announce.ts before this resolves. That is
 * why a write path cannot forget to index or announce.
 *
 * Before the transaction commits, the ids it put into the tables of the id
 * space (every memory kind's and the tasks') are checked against those
 * tables (see unique-ids.ts): an id another kind holds is a ValidationError
 * and nothing is written. So a commit touching any of them runs over all of them.
 */
export type Commit = <T>(operation: string, parts: readonly CommitPart[], body: (scope: CommitScope) => Promise<T>, options?: CommitOptions) => Promise<T>;

/** The tables `parts` name: a kind's table and the vector blocks, or a table by name. */
function declaredTables(parts: readonly CommitPart[]): string[] {
  return [...new Set(parts.flatMap((part) => (typeof part === 'string' ? [part] : [part.table, 'vectorBlocks'])))];
}

/** The tables a commit over `parts` runs in (before any commit hook's). */
export function tablesOf(parts: readonly CommitPart[]): string[] {
  return withIdSpace(declaredTables(parts));
}

export function createCommit(db: EngramDatabase, emit: (event: WriteEvent) => void, hook?: CommitHook): Commit {
  return async (operation, parts, body, options = {}) => {
    const declared = declaredTables(parts);
    const hooked = hook && !options.quiet && declared.some((name) => hook.when.includes(name));
    const inScope = options.quiet ? declared : hooked ? [...new Set<string>([...withIdSpace(declared), ...hook.tables])] : withIdSpace(declared);
    const events: WriteEvent[] = [];
    const after: (() => void)[] = [];
    const drawn = new Set<string>();
    const scope = commitScope(db, operation, parts, events, after, drawn);
    let result;
    try {
      result = await db.transaction('rw', inScope.map((name) => db.table(name)), async (tx) => {
        if (options.quiet) db.changes.markQuiet(tx.idbtrans as never);
        const value = await body(scope);
        // Access-time bookkeeping (quiet) only rewrites stored rows under their own ids.
        if (!options.quiet) await refuseSharedIds(db, tx, drawn);
        if (hooked) await hook.run(tx, db.changes.written(tx.idbtrans as never), options);
        return value;
      });
    } catch (error) {
      throw toStorageError(error, operation);
    }
    for (const event of events) emit(event);
    for (const run of after) run();
    return result;
  };
}

function commitScope(db: EngramDatabase, operation: string, parts: readonly CommitPart[], events: WriteEvent[], after: (() => void)[], drawn: Set<string>): CommitScope {
  const declared = new Set(parts.map((part) => (typeof part === 'string' ? part : part.table)));
  const mustDeclare = (table: string) => {
    if (!declared.has(table)) throw new Error(`The commit "${operation}" writes the ${table} table without declaring it.`);
  };
  return {
    async put(kind, records, vectors, options = {}) {
      mustDeclare(kind.table);
      if (records.length === 0) return;
      const ids = new Set(records.map((record) => record.id));
      for (const id of options.drawnIds ?? []) if (ids.has(id)) drawn.add(id);
      const vectorAt = (record: StoredRecord, i: number) => (vectors instanceof Map ? vectors.get(record.id) : (vectors as readonly (Float32Array | undefined)[] | undefined)?.[i]);
      const entries: { id: string; userId: string; kind: string; vector: Float32Array }[] = [];
      const dropped: string[] = [];
      records.forEach((record, i) => {
        const vector = vectorAt(record, i);
        if (vector) entries.push({ id: record.id, userId: record.userId, kind: kind.type, vector });
        else if (!kind.searchable(record)) dropped.push(record.id);
      });
      const mayExist = options.mayExist && new Set(options.mayExist);
      await db.table(kind.table).bulkPut([...records]);
      if (entries.length > 0) await putVectors(db, entries as never, mayExist ? { mayExist: entries.flatMap((e) => (mayExist.has(e.id) ? [e.id] : [])) } : {});
      const stale = mayExist ? dropped.filter((id) => mayExist.has(id)) : dropped;
      if (stale.length > 0) await deleteVectors(db, stale);
    },
    async remove(kind, ids) {
      mustDeclare(kind.table);
      if (ids.length === 0) return;
      await db.table(kind.table).bulkDelete([...ids]);
      await deleteVectors(db, ids);
    },
    get: (kind, id) => storedRecord(db, kind, id),
    async audit(event, at) {
      mustDeclare('events');
      const { type, userId, ...data } = event;
      await db.events.add({ type, userId, at, data });
      events.push(event);
    },
    emit: (event) => void events.push(event),
    afterCommit: (run) => void after.push(run),
  };
}

/**
 * Throws a ValidationError when the transaction put an id into one id-space table that another holds.
 * Ids in `drawn` were drawn at random for this commit's records (scope.put's `drawnIds`), so they are not read.
 */
async function refuseSharedIds(db: EngramDatabase, tx: Transaction, drawn: ReadonlySet<string>): Promise<void> {
  const ids = idsWritten(db.changes.written(tx.idbtrans as never), drawn);
  if (ids.size === 0) return;
  // Read through the transaction object itself, not Dexie's ambient zone: with other engines' promises interleaving,
  // an ambient read can land outside this transaction, wait for its locks, and let it commit with the body unfinished.
  const conflict = await findIdConflict(tx, ids);
  if (!conflict) return;
  const { id, written, heldBy } = conflict;
  throw new ValidationError(
    `Id "${id}" is already used by ${heldBy.label}, so it cannot also name ${written.label}: ${idSpaceNames()} share one id space. Choose another id, or delete that ${heldBy.type} first.`,
    [{ path: 'id', message: `already used by ${heldBy.label}` }],
  );
}
