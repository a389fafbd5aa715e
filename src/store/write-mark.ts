import Dexie, { type DBCore, type DBCoreMutateRequest, type DBCoreMutateResponse, type DBCoreTable, type DBCoreTransaction, type Middleware } from 'dexie';
import { newId } from '../ids.js';
import { memoryKindIn } from '../memories/registry.js';
import type { IndexLogRow, VectorBlock } from '../schema/records.js';

/** Whether the search index mirrors a table's contents (every memory kind's, and the vector blocks): a write to one moves the mark. */
export const isIndexedTable = (name: string): boolean => name === 'vectorBlocks' || memoryKindIn(name) !== undefined;
export const WRITE_MARK_KEY = 'writeMark';
/** The mark of a store no engine has written since marks exist (a new or pre-v3 database). */
export const NO_MARK = '';
/** The table of the write log (what each write since the snapshot wrote: `IndexLogRow`). */
export const INDEX_LOG_TABLE = 'indexLog';

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
  /**
   * Whether writes are logged (`indexLog`): which memories each one wrote,
   * so an open whose index snapshot lags replays them (index-snapshot.ts).
   * The engine turns it off when it keeps no snapshot (nothing would empty the log).
   */
  logging: boolean;
}

/** Marks this engine wrote that may not have committed yet (a concurrent own write is not a foreign one). */
const RECENT_OWN = 64;

/**
 * A Dexie DBCore middleware (the way dexie-cloud tracks mutations): readwrite
 * transactions over an indexed table also get the `meta` store, and their
 * first mutation replaces the mark. Reading the old mark first tells whether
 * someone else wrote since this engine last did. While `logging`, they also
 * get the `indexLog` store, and each mutation adds a row naming the memories
 * (and vector blocks) it writes, between the old mark and the new one: the
 * trail an open follows from a lagging snapshot's mark to the store's
 * (index-sync/replay-log.ts).
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
    logging: true,
  };
  mark.reset(NO_MARK);
  const stamped = new WeakMap<DBCoreTransaction, Promise<{ previous: string; next: string }>>();

  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'engram-write-mark',
    create(down) {
      const meta = () => down.table('meta');
      const hasLog = down.schema.tables.some((t) => t.name === INDEX_LOG_TABLE);
      const stamp = (trans: DBCoreTransaction): Promise<{ previous: string; next: string }> => {
        let done = stamped.get(trans);
        if (!done) {
          const next = newId();
          own.push(next);
          if (own.length > RECENT_OWN) own.shift();
          // The read and the replacing put are issued together: the transaction runs them in order, so the read
          // still sees the old mark, and the put does not wait a round trip to the storage process for it.
          const previousRow = meta().get({ trans, key: WRITE_MARK_KEY });
          const replaced = meta().mutate({ type: 'put', trans, values: [{ key: WRITE_MARK_KEY, value: next }] });
          done = Dexie.Promise.all([previousRow, replaced])
            .then(([row]) => {
              const value = (row as { value?: unknown } | undefined)?.value;
              const previous = typeof value === 'string' ? value : NO_MARK;
              if (!own.includes(previous)) mark.foreignSeen = true;
              return { previous, next };
            })
            .then((marks) => {
              // The mark counts as this engine's only once the transaction commits (an aborted one left the old mark).
              const idb = trans as unknown as IDBTransaction;
              if (typeof idb.addEventListener === 'function') idb.addEventListener('complete', () => (mark.committed = next));
              else mark.committed = next;
              return marks;
            });
          stamped.set(trans, done);
        }
        return done;
      };
      return {
        ...down,
        transaction(stores, mode, options) {
          if (mode !== 'readwrite' || !stores.some(isIndexedTable)) return down.transaction(stores, mode, options);
          const extra = ['meta', ...(mark.logging && hasLog ? [INDEX_LOG_TABLE] : [])].filter((s) => !stores.includes(s));
          return down.transaction([...stores, ...extra], mode, options);
        },
        table(name) {
          const table = down.table(name);
          if (!isIndexedTable(name)) return table;
          return {
            ...table,
            mutate: (req: DBCoreMutateRequest) =>
              stamp(req.trans).then(async (marks) => {
                if (inScope(req.trans, INDEX_LOG_TABLE)) {
                  // Awaited here, not in a helper: a Dexie promise awaited directly keeps the transaction's zone (a native one would not).
                  const deleted = name === 'vectorBlocks' && req.type === 'delete' ? ((await table.getMany({ trans: req.trans, keys: req.keys })) as (VectorBlock | undefined)[]) : [];
                  const row: IndexLogRow = { previous: marks.previous, mark: marks.next, ids: memoriesOf(table, name, req, deleted) };
                  if (name === 'vectorBlocks' && (req.type === 'put' || req.type === 'add')) row.blocks = (req.values as VectorBlock[]).map((block) => block.id);
                  if (name !== 'vectorBlocks') row.table = name;
                  // The log row and the mutation are issued together (in that order, which the transaction keeps):
                  // neither waits a round trip for the other, and a failure of either still fails the write.
                  const [, response] = await Dexie.Promise.all([down.table(INDEX_LOG_TABLE).mutate({ type: 'add', trans: req.trans, values: [row] }), table.mutate(req)]);
                  return response as DBCoreMutateResponse;
                }
                return table.mutate(req);
              }),
          };
        },
      };
    },
  };
  return { mark, middleware };
}

/**
 * The memories a mutation of an indexed table writes or deletes, for the
 * write log; null for a range delete (clearing a table), which stops any
 * replay past it. `deletedBlocks`: the vector blocks a delete removes, read
 * before it (a block left empty, or a memory's vector dropped), for the
 * memories they held. Task vectors are not memories: the search index holds none.
 */
function memoriesOf(table: DBCoreTable, name: string, req: DBCoreMutateRequest, deletedBlocks: readonly (VectorBlock | undefined)[]): string[] | null {
  if (req.type === 'deleteRange') return null;
  if (name === 'vectorBlocks') {
    const blocks = req.type === 'delete' ? deletedBlocks : (req.values as VectorBlock[]);
    return blocks.flatMap((block) => (!block || block.kind === 'task' ? [] : block.ids));
  }
  if (req.type === 'delete') return req.keys.map(String);
  const keyOf = table.schema.primaryKey.extractKey;
  return req.values.map((value, i) => String(req.keys?.[i] ?? keyOf?.(value)));
}

/** Whether a transaction's scope holds `store` (the upgrade transaction of an older schema may lack the log). */
function inScope(trans: DBCoreTransaction, store: string): boolean {
  const names = (trans as unknown as Partial<IDBTransaction>).objectStoreNames;
  return !!names && names.contains(store);
}
