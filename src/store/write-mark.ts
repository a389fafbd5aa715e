import type { DBCore, DBCoreMutateRequest, DBCoreTransaction, Middleware } from 'dexie';
import { newId } from '../ids.js';

/** The tables whose contents the search index mirrors: a write to any of them moves the mark. */
export const INDEXED_TABLES: ReadonlySet<string> = new Set(['facts', 'episodes', 'turns', 'vectorBlocks']);
export const WRITE_MARK_KEY = 'writeMark';
/** The mark of a store no engine has written since marks exist (a new or pre-v3 database). */
export const NO_MARK = '';

/**
 * This engine's view of the store's write mark: a random token that every
 * readwrite transaction touching an indexed table replaces, inside that
 * transaction. A persisted index snapshot records the mark it reflects; at
 * open it is used only if the store is still at that mark, so no write path
 * can leave a stale snapshot in use by forgetting to invalidate it.
 */
export interface WriteMark {
  /** The mark of this engine's last committed indexed write (or the mark read when the index was loaded). */
  committed: string;
  /** Whether another engine (a tab) has written since the index was loaded: its snapshot may then lag. */
  foreignSeen: boolean;
  /** Called when the index is (re)loaded at `mark` from one consistent read. */
  reset(mark: string): void;
}

/** Marks this engine wrote that may not have committed yet (a concurrent own write is not a foreign one). */
const RECENT_OWN = 64;

/**
 * A Dexie DBCore middleware (the way dexie-cloud tracks mutations): readwrite
 * transactions over an indexed table also get the `meta` store, and their
 * first mutation replaces the mark. Reading the old mark first tells whether
 * someone else wrote since this engine last did.
 */
export function writeMarkMiddleware(): { mark: WriteMark; middleware: Middleware<DBCore> } {
  const own: string[] = [];
  const mark: WriteMark = {
    committed: NO_MARK,
    foreignSeen: false,
    reset(value) {
      this.committed = value;
      this.foreignSeen = false;
      own.length = 0;
      own.push(value);
    },
  };
  mark.reset(NO_MARK);
  const stamped = new WeakMap<DBCoreTransaction, Promise<void>>();

  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'engram-write-mark',
    create(down) {
      const meta = () => down.table('meta');
      const stamp = (trans: DBCoreTransaction): Promise<void> => {
        let done = stamped.get(trans);
        if (!done) {
          const next = newId();
          own.push(next);
          if (own.length > RECENT_OWN) own.shift();
          done = meta()
            .get({ trans, key: WRITE_MARK_KEY })
            .then((row: { value?: unknown } | undefined) => {
              const previous = typeof row?.value === 'string' ? row.value : NO_MARK;
              if (!own.includes(previous)) mark.foreignSeen = true;
              return meta().mutate({ type: 'put', trans, values: [{ key: WRITE_MARK_KEY, value: next }] });
            })
            .then(() => {
              // The mark counts as this engine's only once the transaction commits (an aborted one left the old mark).
              const idb = trans as unknown as IDBTransaction;
              if (typeof idb.addEventListener === 'function') idb.addEventListener('complete', () => (mark.committed = next));
              else mark.committed = next;
            });
          stamped.set(trans, done);
        }
        return done;
      };
      return {
        ...down,
        transaction(stores, mode, options) {
          const widened = mode === 'readwrite' && stores.some((s) => INDEXED_TABLES.has(s)) && !stores.includes('meta') ? [...stores, 'meta'] : stores;
          return down.transaction(widened, mode, options);
        },
        table(name) {
          const table = down.table(name);
          if (!INDEXED_TABLES.has(name)) return table;
          return {
            ...table,
            mutate: (req: DBCoreMutateRequest) => stamp(req.trans).then(() => table.mutate(req)),
          };
        },
      };
    },
  };
  return { mark, middleware };
}
