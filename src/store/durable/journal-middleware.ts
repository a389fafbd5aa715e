import { deserialize, serialize } from 'node:v8';
import type { DBCore, DBCoreKeyRange, DBCoreMutateRequest, DBCoreMutateResponse, DBCoreTransaction, Middleware } from 'dexie';

/** One mutation of a committed transaction, as the journal stores it. Values are v8-serialized when the request is made (IndexedDB's own clone point). */
export type JournalOp =
  | { table: string; type: 'put'; values: Uint8Array; keys?: unknown[] }
  | { table: string; type: 'delete'; keys: unknown[] }
  | { table: string; type: 'deleteRange'; range: Pick<DBCoreKeyRange, 'type' | 'lower' | 'upper' | 'lowerOpen' | 'upperOpen'> };

/**
 * Tables that are not journaled. The index snapshot is a cache (its rows name
 * page files, see page-folder.ts; stores written by engram before those held
 * Blobs, which cannot be serialized synchronously); it reaches disk with each
 * compacted image, and a journal replayed after it moves the write mark, so a
 * snapshot that no longer matches the records is never used (see index-snapshot.ts).
 */
export const UNJOURNALED: ReadonlySet<string> = new Set(['snapshot']);

/**
 * Tables whose additions are journaled but not their deletions: the write log
 * (`indexLog`, store/write-mark.ts) is pruned by each snapshot save, and the
 * snapshot itself reaches disk only with the next image. After a crash, the
 * image's snapshot must still find every write since it in the log, so the
 * journal keeps them; the next image holds the log as it is in memory.
 */
export const APPEND_ONLY: ReadonlySet<string> = new Set(['indexLog']);

interface Captured {
  op: JournalOp;
  result?: DBCoreMutateResponse;
  failed?: boolean;
}

/**
 * The durable journal, as a Dexie DBCore middleware placed closest to
 * IndexedDB (it sees every request the other middlewares make, the write mark
 * included). It records each mutation of a transaction; when IndexedDB
 * reports the transaction complete, `commit` writes the whole transaction as
 * one journal record and syncs it, synchronously, inside the `complete`
 * listener. Listeners added with addEventListener run before the
 * `oncomplete` handler Dexie resolves its transaction promise from, so a
 * write resolves only once it is on disk; an aborted transaction is never
 * written. If the journal cannot be written, every later write fails with
 * `failure()` instead of pretending to be durable. `mutating` hears of every
 * write request, journaled table or not, before it is made.
 */
export function journalMiddleware(sink: { commit(ops: JournalOp[]): void; failure(): Error | null; mutating?(): void }): Middleware<DBCore> {
  const open = new WeakMap<DBCoreTransaction, Captured[]>();

  const capturedOf = (trans: DBCoreTransaction): Captured[] => {
    let list = open.get(trans);
    if (!list) {
      const fresh: Captured[] = [];
      list = fresh;
      open.set(trans, fresh);
      (trans as unknown as IDBTransaction).addEventListener('complete', () => {
        const ops = fresh.flatMap(finalOp);
        if (ops.length > 0) sink.commit(ops);
      });
    }
    return list;
  };

  return {
    stack: 'dbcore',
    name: 'engram-durable-journal',
    level: -2,
    create(down) {
      return {
        ...down,
        table(name) {
          const table = down.table(name);
          if (UNJOURNALED.has(name)) {
            return {
              ...table,
              mutate(req: DBCoreMutateRequest) {
                sink.mutating?.();
                return table.mutate(req);
              },
            };
          }
          const { outbound, autoIncrement } = table.schema.primaryKey;
          const needsKeys = !!(outbound || autoIncrement);
          return {
            ...table,
            mutate(req: DBCoreMutateRequest) {
              sink.mutating?.();
              const failure = sink.failure();
              if (failure) return Promise.reject(failure);
              if (APPEND_ONLY.has(name) && req.type !== 'add' && req.type !== 'put') return table.mutate(req);
              let captured: Captured;
              let sent = req;
              if (req.type === 'add' || req.type === 'put') {
                captured = { op: { table: name, type: 'put', values: serialize(req.values) } };
                // Generated keys (`++seq`) are only known from the result: ask for them.
                if (needsKeys) sent = { ...req, wantResults: true };
              } else if (req.type === 'delete') {
                captured = { op: { table: name, type: 'delete', keys: [...req.keys] } };
              } else {
                const { type, lower, upper, lowerOpen, upperOpen } = req.range;
                captured = { op: { table: name, type: 'deleteRange', range: { type, lower, upper, lowerOpen, upperOpen } } };
              }
              capturedOf(req.trans).push(captured);
              return table.mutate(sent).then(
                (result) => {
                  captured.result = result;
                  return result;
                },
                (error: unknown) => {
                  captured.failed = true;
                  throw error;
                },
              );
            },
          };
        },
      };
    },
  };
}

/** The op as committed: a request that failed is dropped, items a bulk request skipped are left out, generated keys are added. */
function finalOp({ op, result, failed }: Captured): JournalOp[] {
  if (failed) return [];
  const failures = result ? Object.keys(result.failures ?? {}).map(Number) : [];
  if (op.type === 'put') {
    const keys = result?.results;
    if (failures.length === 0) return [keys ? { ...op, keys } : op];
    const skip = new Set(failures);
    const values = (deserialize(op.values) as unknown[]).filter((_, i) => !skip.has(i));
    return [{ ...op, values: serialize(values), keys: keys?.filter((_, i) => !skip.has(i)) }];
  }
  if (op.type === 'delete' && failures.length > 0) {
    const skip = new Set(failures);
    return [{ ...op, keys: op.keys.filter((_, i) => !skip.has(i)) }];
  }
  return [op];
}
