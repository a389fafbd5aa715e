import Dexie, { type Transaction } from 'dexie';
import { ValidationError } from '../errors.js';
import type { EngramEvent } from '../telemetry/events.js';
import type { EngramDatabase } from './database.js';
import { toStorageError } from './transaction-errors.js';
import { findIdConflict, idsWritten, KIND_NAMES, withIdSpace } from './unique-ids.js';

/** A table of the database, by name. */
export type TableName = {
  [K in keyof EngramDatabase]: EngramDatabase[K] extends Dexie.Table ? K : never;
}[keyof EngramDatabase];

/** The typed events a write may report besides `change` (which the change feed announces by itself). */
export type WriteEvent = Exclude<EngramEvent, { type: 'change' }>;

/** What a commit's body can ask for besides writing: both happen only if the transaction commits. */
export interface CommitScope {
  /** A typed event (dedup, eviction, ...) to emit once the transaction has committed. */
  emit(event: WriteEvent): void;
  /** Work to start once the transaction has committed (e.g. scheduling the job it queued). */
  afterCommit(run: () => void): void;
}

export interface CommitOptions {
  /** Access-time bookkeeping: the indexes mirror it, but no `change` event or cross-tab signal is sent. */
  quiet?: boolean;
}

/**
 * The one way anything is written: `commit(operation, tables, body)` runs
 * `body` in one readwrite transaction over `tables` (all or nothing), turns
 * any failure into a typed EngramError naming `operation`, and after the
 * commit emits the body's events and runs its after-commit work.
 *
 * It does not update the indexes or announce the change itself: the change
 * feed (store/change-feed.ts) sees every row the transaction wrote and, once
 * it commits, hands them to index-sync/announce.ts before this resolves. That is
 * why a write path cannot forget to index or announce.
 *
 * Before the transaction commits, the ids it put into episodes, facts, turns
 * and tasks are checked against those tables (one id space: see
 * unique-ids.ts): an id another kind holds is a ValidationError and nothing
 * is written. So a commit touching any of them runs over all of them.
 */
export type Commit = <T>(operation: string, tables: readonly TableName[], body: (scope: CommitScope) => Promise<T>, options?: CommitOptions) => Promise<T>;

export function createCommit(db: EngramDatabase, emit: (event: WriteEvent) => void): Commit {
  return async (operation, tables, body, options = {}) => {
    const events: WriteEvent[] = [];
    const after: (() => void)[] = [];
    const scope: CommitScope = { emit: (event) => void events.push(event), afterCommit: (run) => void after.push(run) };
    let result;
    try {
      result = await db.transaction('rw', withIdSpace(tables).map((name) => db.table(name)), async (tx) => {
        if (options.quiet) db.changes.markQuiet(tx.idbtrans as never);
        const value = await body(scope);
        // Access-time bookkeeping (quiet) only rewrites stored rows under their own ids.
        if (!options.quiet) await refuseSharedIds(db, tx);
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

/** Throws a ValidationError when the transaction put an id into one id-space table that another holds. */
async function refuseSharedIds(db: EngramDatabase, tx: Transaction): Promise<void> {
  const ids = idsWritten(db.changes.written(tx.idbtrans as never));
  if (ids.size === 0) return;
  // Read through the transaction object itself, not Dexie's ambient zone: with other engines' promises interleaving,
  // an ambient read can land outside this transaction, wait for its locks, and let it commit with the body unfinished.
  const conflict = await findIdConflict(tx, ids);
  if (!conflict) return;
  const { id, written, heldBy } = conflict;
  throw new ValidationError(
    `Id "${id}" is already used by ${KIND_NAMES[heldBy]}, so it cannot also name ${KIND_NAMES[written]}: episodes, facts, turns and tasks share one id space. Choose another id, or delete that ${KIND_NAMES[heldBy].split(' ')[1]} first.`,
    [{ path: 'id', message: `already used by ${KIND_NAMES[heldBy]}` }],
  );
}
