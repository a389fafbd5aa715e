import type { DBCore, DBCoreMutateRequest, DBCoreTable, DBCoreTransaction, Middleware } from 'dexie';
import { memoryKindIn } from '../memories/registry.js';

/** Besides every memory kind's table (memories/registry.ts): the tables whose rows the app sees, or the indexes mirror (vector blocks). */
export const OTHER_RECORD_TABLES: readonly string[] = ['tasks', 'steps', 'patterns', 'profiles', 'vectorBlocks'];
export const isRecordTable = (name: string): boolean => memoryKindIn(name) !== undefined || OTHER_RECORD_TABLES.includes(name);

/** One row a committed transaction wrote or deleted (the last thing it did to that key). */
export interface RowChange {
  /** A memory kind's table, or one of OTHER_RECORD_TABLES. */
  table: string;
  key: string;
  /** The row as written; undefined when the row was deleted. */
  value?: unknown;
  /** The row before it was deleted (vector blocks excepted: nothing reads them back). */
  previous?: unknown;
}

/** What one readwrite transaction changed, handed over when it has committed. */
export interface CommittedChange {
  rows: RowChange[];
  /** Access-time bookkeeping (recall's `lastAccessedAt`): mirrored into the indexes, not announced. */
  quiet: boolean;
}

export type ChangeListener = (change: CommittedChange) => void;

/**
 * Every committed write, whichever code path made it. A Dexie DBCore
 * middleware (the layer every Dexie write crosses, as in dexie-cloud) logs
 * the rows each readwrite transaction puts and deletes, and when IndexedDB
 * reports the transaction complete, hands the log to the listener. That is
 * where the in-memory indexes are updated and the change is announced (see
 * index-sync/announce.ts), so no write path can forget to: it never has to ask.
 *
 * The listener runs in the transaction's `complete` event, registered before
 * Dexie's own handler, so by the time the caller's `await` of the
 * transaction resumes, the indexes already show the write. An aborted
 * transaction reports nothing.
 */
export interface ChangeFeed {
  /** Starts handing committed changes to `listener` (once the indexes are built; earlier changes are what the build reads). */
  start(listener: ChangeListener): void;
  /** Stops handing them out (close). */
  stop(): void;
  /** Marks the running transaction's changes as quiet (see `CommittedChange.quiet`). */
  markQuiet(trans: DBCoreTransaction): void;
  /** The rows the running transaction has written so far (the last change of each key), for checks before it commits. */
  written(trans: DBCoreTransaction): readonly RowChange[];
}

interface TransactionLog {
  rows: Map<string, RowChange>;
  quiet: boolean;
}

export function changeFeedMiddleware(): { feed: ChangeFeed; middleware: Middleware<DBCore> } {
  let listener: ChangeListener | null = null;
  const logs = new WeakMap<DBCoreTransaction, TransactionLog>();
  const feed: ChangeFeed = {
    start: (next) => void (listener = next),
    stop: () => void (listener = null),
    markQuiet: (trans) => {
      const log = logs.get(trans);
      if (log) log.quiet = true;
    },
    written: (trans) => [...(logs.get(trans)?.rows.values() ?? [])],
  };

  const record = (log: TransactionLog, change: RowChange) => log.rows.set(`${change.table}\u0000${change.key}`, change);

  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'engram-change-feed',
    create(down) {
      return {
        ...down,
        transaction(stores, mode, options) {
          const trans = down.transaction(stores, mode, options);
          if (mode === 'readwrite' && stores.some(isRecordTable)) {
            const log: TransactionLog = { rows: new Map(), quiet: false };
            logs.set(trans, log);
            const idb = trans as unknown as Partial<IDBTransaction>;
            idb.addEventListener?.('complete', () => {
              if (log.rows.size > 0 && listener) listener({ rows: [...log.rows.values()], quiet: log.quiet });
            });
          }
          return trans;
        },
        table(name) {
          const table = down.table(name);
          if (!isRecordTable(name)) return table;
          return { ...table, mutate: (req: DBCoreMutateRequest) => logged(table, name, req) };
        },
      };
    },
  };

  async function logged(table: DBCoreTable, name: string, req: DBCoreMutateRequest) {
    const log = logs.get(req.trans);
    if (!log) return table.mutate(req);
    if (req.type === 'add' || req.type === 'put') {
      const response = await table.mutate(req);
      const keyOf = table.schema.primaryKey.extractKey;
      req.values.forEach((value, i) => {
        if (response.failures[i]) return;
        const key = req.keys?.[i] ?? keyOf?.(value);
        record(log, { table: name, key: String(key), value });
      });
      return response;
    }
    // A delete: which keys, and (for everything but vector blocks) whose rows they were.
    const keys =
      req.type === 'delete'
        ? req.keys
        : (await table.query({ trans: req.trans, values: false, query: { index: table.schema.primaryKey, range: req.range } })).result;
    const previous = name === 'vectorBlocks' ? [] : await table.getMany({ trans: req.trans, keys });
    const response = await table.mutate(req);
    keys.forEach((key, i) => {
      if (name !== 'vectorBlocks' && previous[i] === undefined) return; // nothing was there
      record(log, { table: name, key: String(key), previous: previous[i] });
    });
    return response;
  }

  return { feed, middleware };
}
