import type { DBCore, Middleware } from 'dexie';

/** The store every readwrite transaction also takes (it holds the write mark, see write-mark.ts). */
const WRITER_LOCK_STORE = 'meta';

/**
 * One readwrite transaction at a time per database: every readwrite
 * transaction also takes the `meta` store, so IndexedDB, which runs
 * transactions with overlapping scopes one after the other, never runs two
 * of engram's writes side by side, in this engine or in any other tab or
 * engine on the same database.
 *
 * Why: Chromium writes a readwrite transaction to disk as it goes, with an
 * undo log (LevelDB "scopes"), and after a crash reverts the ones that did
 * not commit. Measured with Chromium 156 (test/browser/crash-on-disk.test.ts,
 * and by truncating a killed profile's LevelDB log record by record): when
 * the browser dies with one unfinished readwrite transaction it recovers;
 * with two, it reports the store corrupt ("Unknown corruption") and deletes
 * the origin's whole IndexedDB, acknowledged writes included. engram's
 * writes are short, so queueing them costs little; other databases of the
 * same origin are the app's to keep to one writer (README, Guarantees).
 */
export function oneWriterMiddleware(): Middleware<DBCore> {
  return {
    stack: 'dbcore',
    name: 'engram-one-writer',
    create(down) {
      return {
        ...down,
        transaction(stores, mode, options) {
          const widened = mode === 'readwrite' && !stores.includes(WRITER_LOCK_STORE) ? [...stores, WRITER_LOCK_STORE] : stores;
          return down.transaction(widened, mode, options);
        },
      };
    },
  };
}
