import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { deserializeOwned } from './own-buffers.js';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { CorruptionError, StorageError, ValidationError } from '../../errors.js';
import { EngramDatabase } from '../database.js';
import { attachMiddleware } from '../factory-middlewares.js';
import { JournalFile } from './journal-file.js';
import { journalMiddleware, UNJOURNALED, type JournalOp } from './journal-middleware.js';
import { blobsToBytes, bytesToBlobs, IMAGE_FORMAT, syncDirectory, writeImageAtomically, type StoreImage } from './store-image.js';
import { IMAGE_FILE, JOURNAL_FILE, readStoreFiles } from './store-files.js';
import { verifyStore, type DamagedStore, type OpenableStore } from './verify-store.js';
import { storeFolderName, storeNameProblem } from './store-name.js';
import { keepBeside } from './keep-beside.js';
import { acquireLock } from './store-lock.js';
import { bulkStoreRows } from './bulk-load.js';
import { PageFolder } from './page-folder.js';
import { isPayloadFile } from '../page-file-store.js';

/** The journal is compacted into a new image once it is larger than this, or than the image (whichever is larger). */
const COMPACT_AT_BYTES = 64 * 1024 * 1024;

/** An IndexedDB whose committed transactions survive the process (see README "Node: durable store"). */
export interface DurableStore {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
  /** Where the store's files are. */
  folder: string;
  /** The index snapshot's page payloads, in `<folder>/pages` (page-folder.ts). */
  pageFiles: PageFolder;
  /**
   * What the open found: rows from the image, journal records replayed, bytes of torn tail left out (cut from
   * the file unless read-only), and a damaged image left out because the journal rebuilt the store without it.
   */
  opened: { imageRows: number; replayed: number; tornBytes: number; readOnly: boolean; imageLeftOut: { offset: number; reason: string } | null };
  /** Writes a compacted image now (also done in the background and at close). */
  compact(): Promise<void>;
  /** Compacts, then releases the lock. Call after the database is closed. */
  close(): Promise<void>;
}

/** How a durable store is opened. */
export interface DurableOpenOptions {
  /**
   * Reads a snapshot of the store as its files are now, even while another
   * process owns it: no lock is taken and nothing on disk is written,
   * truncated, compacted, created or removed. Every write to the database is
   * refused with a StorageError. The store must exist.
   */
  readOnly?: boolean;
}

/**
 * Opens the durable store of database `name` in `directory`: the same
 * IndexedDB (fake-indexeddb, in memory) the tests use, loaded from the last
 * compacted image plus the journal of transactions committed after it, and
 * journaling every transaction committed from now on (journal-middleware.ts).
 * Files: `<directory>/<name>/image.v8`, `journal.log`, `LOCK`, `pages/`.
 * Files that do not verify are never changed to open: verify-store.ts says
 * what opens, and a store that does not is a CorruptionError.
 */
export async function openDurableStore(directory: string, name: string, options: DurableOpenOptions = {}): Promise<DurableStore> {
  const problem = storeNameProblem(name);
  if (problem) throw new ValidationError(`createMemory: the store name "${name}" ${problem}.`, [{ path: 'name', message: problem }]);
  const folder = resolve(directory, storeFolderName(name));
  if (options.readOnly) return openReadOnly(directory, name, folder);
  mkdirSync(folder, { recursive: true });
  const release = acquireLock(join(folder, 'LOCK'), folder);
  let journal: JournalFile | undefined;
  try {
    const imagePath = join(folder, IMAGE_FILE);
    const verified = verifyStore(readStoreFiles(folder));
    if (!verified.ok) throw corruptionError(directory, name, folder, verified);
    const { indexedDB, version, image, replayed } = await loadVerified(folder, name, verified);
    // Only now that the open cannot fail on what the files hold: a damaged image that the journal rebuilt
    // without is kept beside the store (a compaction would replace it), and the journal's torn tail is cut.
    if (verified.imageLeftOut) keepBeside(imagePath, { move: true });
    journal = JournalFile.open(join(folder, JOURNAL_FILE), verified.journal, image !== null);
    syncDirectory(folder);
    const tornBytes = verified.journal.tornAt === null ? 0 : verified.journal.bytes - verified.journal.tornAt;
    const pageFiles = new PageFolder(join(folder, 'pages'));
    pageFiles.keep(filesNamedBy(image?.stores.snapshot));
    const opened = { imageRows: rowsOf(image), replayed: replayed.length, tornBytes, readOnly: false, imageLeftOut: verified.imageLeftOut };

    // The image on disk is the whole state until a write is made: then close() need not write it again (a
    // read-only session, such as `npx engram stats`, closes at once). A journal replayed at open, or an image
    // of an earlier schema version, is compacted as before.
    let unchanged = image !== null && image.version === version && replayed.length === 0 && tornBytes === 0;
    let imageBytes = 0;
    let broken: Error | null = null;
    let compacting: Promise<void> | null = null;
    const liveJournal = journal;
    const compact = (): Promise<void> => {
      // Both right where the image is written, before any other transaction or save can run: the journal it
      // holds is emptied, and the page files it names are kept from then on (a save's sweep in between would
      // delete files that only the new image names).
      const written = (stores: Record<string, unknown[]>) => {
        liveJournal.reset();
        pageFiles.keep(filesNamedBy(stores.snapshot));
      };
      compacting ??= writeImage(indexedDB, name, version, imagePath, written)
        .then((bytes) => {
          imageBytes = bytes;
        })
        .finally(() => {
          compacting = null;
        });
      return compacting;
    };
    attachMiddleware(
      indexedDB,
      journalMiddleware({
        commit(ops) {
          try {
            liveJournal.append(serialize(ops));
          } catch (error) {
            broken = new StorageError(
              `engram could not write its journal in "${folder}" (${(error as Error).message}); the last write may not be on disk. Free space or fix permissions, then reopen the memory.`,
              { folder },
            );
            return;
          }
          // The journal stays the source of truth if a compaction fails; the next one retries.
          if (!compacting && liveJournal.size > Math.max(COMPACT_AT_BYTES, imageBytes)) setImmediate(() => void compact().catch(() => undefined));
        },
        failure: () => broken,
        mutating: () => {
          unchanged = false;
        },
      }),
    );

    let closed = false;
    return {
      indexedDB,
      IDBKeyRange,
      folder,
      pageFiles,
      opened,
      compact,
      async close() {
        if (closed) return;
        closed = true;
        try {
          await compacting;
          if (!broken) {
            if (!unchanged || liveJournal.size > 0) await compact();
            // The engine is closed: no save is writing a file that a row is yet to name.
            await pageFiles.sweep();
          }
        } finally {
          liveJournal.close();
          release();
        }
      },
    };
  } catch (error) {
    journal?.close();
    release();
    throw error;
  }
}

/** A snapshot of the store for reading (DurableOpenOptions.readOnly): the same load, with nothing on disk touched. */
async function openReadOnly(directory: string, name: string, folder: string): Promise<DurableStore> {
  const files = readStoreFiles(folder);
  if (files.image.kind === 'missing' && files.journal.kind === 'missing') {
    throw new StorageError(`There is no engram store "${name}" in "${resolve(directory)}": a read-only open reads an existing store (open it without readOnly to create one).`, {
      folder,
    });
  }
  const verified = verifyStore(files);
  if (!verified.ok) throw corruptionError(directory, name, folder, verified);
  const { indexedDB, image, replayed } = await loadVerified(folder, name, verified);
  const refused = new StorageError(`This memory was opened read-only (readOnly: true) on the engram store in "${folder}": it writes nothing. Open it without readOnly to write.`, {
    folder,
    readOnly: true,
  });
  attachMiddleware(indexedDB, journalMiddleware({ commit: () => undefined, failure: () => refused }));
  const tornBytes = verified.journal.tornAt === null ? 0 : verified.journal.bytes - verified.journal.tornAt;
  return {
    indexedDB,
    IDBKeyRange,
    folder,
    pageFiles: new PageFolder(join(folder, 'pages'), { readOnly: true }),
    opened: { imageRows: rowsOf(image), replayed: replayed.length, tornBytes, readOnly: true, imageLeftOut: verified.imageLeftOut },
    compact: () => Promise.reject(refused),
    close: async () => undefined,
  };
}

/** Loads a verified store into a new in-memory IndexedDB, after checking that this version of engram reads it. */
async function loadVerified(folder: string, name: string, verified: OpenableStore): Promise<{ indexedDB: IDBFactory; version: number; image: StoreImage | null; replayed: JournalOp[][] }> {
  const { image } = verified;
  const indexedDB = new IDBFactory();
  const version = await createSchema(indexedDB, name);
  if (image && image.format > IMAGE_FORMAT) {
    throw new StorageError(`The engram store in "${folder}" has image format ${image.format}; this version reads formats up to ${IMAGE_FORMAT}. Upgrade engram.`, { folder });
  }
  if (image && !loadsAsIs(image.version, version)) {
    throw new StorageError(
      `The engram store in "${folder}" was written with schema version ${image.version / 10}; this version of engram has ${version / 10}. Migrating durable stores between schema versions is not supported yet: export with the engram version that wrote it, then import.`,
      { folder, stored: image.version, expected: version },
    );
  }
  const replayed = verified.records.map((record) => deserialize(record) as JournalOp[]);
  await load(indexedDB, name, image, replayed);
  return { indexedDB, version, image, replayed };
}

/** The CorruptionError for a store that does not open: which file, where, and the repair command. */
export function corruptionError(directory: string, name: string, folder: string, damage: DamagedStore): CorruptionError {
  const file = join(folder, damage.file);
  const repair = `npx engram repair --dir ${shellWord(directory)} --name ${shellWord(name)}`;
  return new CorruptionError(
    `The engram store in "${folder}" is damaged: ${damage.file} ${damage.reason}. Opening it would lose data, so nothing was opened or changed. \`${repair}\` writes a new store from every record that verifies and keeps the damaged files beside it.`,
    { folder, file, offset: damage.offset, reason: damage.reason, repair },
  );
}

function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function rowsOf(image: StoreImage | null): number {
  return image ? Object.values(image.stores).reduce((n, rows) => n + rows.length, 0) : 0;
}

/** Creates the schema with the database class itself (so it is the engine's, version for version); returns the IndexedDB version. */
/**
 * IndexedDB versions (Dexie's schema version × 10) whose upgrade only adds
 * object stores: an image written under the version before has rows for
 * stores that are unchanged, so it loads as it is (and the next compaction
 * writes it under the new version). v5 adds `turns`, v6 `indexLog`, v7 sync's `syncOutbox` and `syncVersions`.
 */
const ADDITIVE_VERSIONS: ReadonlySet<number> = new Set([50, 60, 70]);

export function loadsAsIs(stored: number, current: number): boolean {
  if (stored > current) return false;
  for (let v = stored + 10; v <= current; v += 10) if (!ADDITIVE_VERSIONS.has(v)) return false;
  return true;
}

export async function createSchema(indexedDB: IDBFactory, name: string): Promise<number> {
  const db = new EngramDatabase(name, { indexedDB, IDBKeyRange });
  await db.open();
  const version = db.backendDB().version;
  db.close();
  return version;
}

/**
 * Rows put per transaction while loading. fake-indexeddb keeps a
 * transaction's pending requests in an array it shifts from the front, which
 * costs time in proportion to the queue: one transaction of a whole store's
 * puts spends time quadratic in its rows on the shifting alone. Nobody sees the database until the load is
 * done (and a load that stops halfway leaves the files as they were), so it
 * needs no single transaction.
 */
const LOAD_BATCH = 1000;

/**
 * Stores the image's rows (bulk-load.ts, else recordStoreOf row by row), then
 * replays the journal's transactions in order, in batches of LOAD_BATCH
 * operations. Resolves the tables whose rows were stored one by one (none,
 * with the fake-indexeddb this code knows).
 */
export async function load(indexedDB: IDBFactory, name: string, image: StoreImage | null, records: JournalOp[][], options: { direct?: boolean } = {}): Promise<{ rowByRow: string[] }> {
  const idb = await request<IDBDatabase>(indexedDB.open(name));
  const rowByRow: string[] = [];
  try {
    const names = [...idb.objectStoreNames];
    let tx: IDBTransaction | undefined;
    let queued = 0;
    const pending: Promise<void>[] = [];
    const transaction = (): IDBTransaction => {
      if (tx && queued < LOAD_BATCH) return tx;
      const next = idb.transaction(names, 'readwrite');
      pending.push(
        new Promise<void>((resolvePromise, reject) => {
          next.oncomplete = () => resolvePromise();
          next.onabort = () => reject(next.error ?? new Error('replay aborted'));
        }),
      );
      queued = 0;
      tx = next;
      return next;
    };
    if (image) {
      for (const [table, rows] of Object.entries(image.stores)) {
        if (rows.length === 0) continue;
        // `direct: false` (tests) takes the public path that any IndexedDB has.
        const direct = options.direct === false ? undefined : recordStoreOf(idb, table);
        // Only the unjournaled tables' rows had their Blobs turned into bytes (writeImage): no other row is looked through.
        const value = UNJOURNALED.has(table) ? bytesToBlobs : identity;
        if (direct) {
          const values = value === identity ? rows : rows.map(value);
          // One pass per tree (bulk-load.ts); else row by row, as fake-indexeddb's put stores them.
          if (bulkStoreRows(direct, values)) continue;
          rowByRow.push(table);
          withoutStackTraces(() => {
            for (const row of values) direct.storeRecord({ key: undefined, value: row }, false);
          });
          continue;
        }
        rowByRow.push(table);
        for (const row of rows) {
          transaction().objectStore(table).put(value(row));
          queued++;
        }
      }
    }
    for (const ops of records) {
      for (const op of ops) {
        applyOp(transaction(), op);
        queued += op.type === 'deleteRange' ? 1 : (op.keys?.length ?? 1);
      }
    }
    // Readwrite transactions over the same stores run one after another, in the order they were created.
    await Promise.all(pending);
    return { rowByRow };
  } finally {
    idb.close();
  }
}

/** The part of fake-indexeddb's own object store (lib/ObjectStore.js, 6.x) the image load writes through. */
interface RecordStore {
  keyPath: unknown;
  storeRecord(record: { key: undefined; value: unknown }, noOverwrite: boolean): unknown;
}

/**
 * The image's rows are stored straight into fake-indexeddb's object store
 * when this version of it has the one this code knows: its trees built in
 * one pass (bulk-load.ts), or else row by row through the same
 * `storeRecord` its `put` runs (key from the key path, key generator,
 * indexes), without the structured clone, request and success event that
 * `put` adds per row, which were most of a large store's open. Safe
 * because the rows are this load's own
 * objects, deserialized for it and dropped after, and fake-indexeddb clones
 * on every read. Any other version (or store without a key path) gets undefined and the
 * public `put` path.
 */
function recordStoreOf(idb: IDBDatabase, table: string): RecordStore | undefined {
  const raw = (idb as unknown as { _rawDatabase?: { rawObjectStores?: Map<string, Partial<RecordStore>> } })._rawDatabase?.rawObjectStores?.get(table);
  if (!raw || typeof raw.storeRecord !== 'function' || raw.keyPath === null || raw.keyPath === undefined) return undefined;
  return raw as RecordStore;
}

/**
 * Runs `work` (synchronous) with no stack traces captured for errors made
 * meanwhile. fake-indexeddb skips a row in an index when the row's indexed
 * field is not a valid key (a null `validUntil`, `sessionId`, ...), by
 * throwing and catching a DOMException per row and index; capturing each
 * one's stack walks the stack once per row and index. (An error that escapes
 * `work`, which fails the open, keeps its message, not its stack.)
 */
function withoutStackTraces(work: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    work();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const identity = (row: unknown): unknown => row;

function applyOp(tx: IDBTransaction, op: JournalOp): void {
  const store = tx.objectStore(op.table);
  if (op.type === 'put') {
    const values = deserializeOwned<unknown[]>(op.values);
    values.forEach((value, i) => {
      const key = op.keys?.[i] as IDBValidKey | undefined;
      if (store.keyPath === null) store.put(value, key);
      else {
        if (key !== undefined && typeof store.keyPath === 'string' && value && typeof value === 'object') {
          (value as Record<string, unknown>)[store.keyPath] ??= key;
        }
        store.put(value);
      }
    });
  } else if (op.type === 'delete') {
    for (const key of op.keys) store.delete(key as IDBValidKey);
  } else {
    const { type, lower, upper, lowerOpen, upperOpen } = op.range;
    if (type === 3 /* any */) store.clear();
    else if (type === 4 /* never */) return;
    else if (lower === undefined && upper === undefined) store.clear();
    else if (lower === undefined) store.delete(IDBKeyRange.upperBound(upper, !!upperOpen));
    else if (upper === undefined) store.delete(IDBKeyRange.lowerBound(lower, !!lowerOpen));
    else store.delete(IDBKeyRange.bound(lower, upper, !!lowerOpen, !!upperOpen));
  }
}

/**
 * Writes a compacted image. The journaled stores are read in one readonly
 * transaction; IndexedDB runs a later readwrite transaction only after it,
 * and each earlier one has appended its record on completing, so when the
 * last read succeeds the rows are exactly the journal's state. The image is
 * written and `written` called (which empties the journal) right there,
 * synchronously, before any other transaction can commit. (Replaying a
 * journal over an image that already holds it gives the same state, so a
 * crash between the two is safe.) Resolves the image's size in bytes.
 */
export async function writeImage(
  indexedDB: IDBFactory,
  name: string,
  version: number,
  path: string,
  written: (stores: Record<string, unknown[]>) => void,
): Promise<number> {
  const idb = await request<IDBDatabase>(indexedDB.open(name));
  try {
    const names = [...idb.objectStoreNames];
    const cached = names.filter((n) => UNJOURNALED.has(n));
    const journaled = names.filter((n) => !UNJOURNALED.has(n));
    const stores: Record<string, unknown[]> = {};
    for (const table of cached) {
      const rows = await request<unknown[]>(idb.transaction(table, 'readonly').objectStore(table).getAll());
      stores[table] = await Promise.all(rows.map(blobsToBytes));
    }
    return await new Promise((resolvePromise, reject) => {
      const tx = idb.transaction(journaled, 'readonly');
      tx.onabort = () => reject(tx.error ?? new Error('compaction read aborted'));
      journaled.forEach((table, i) => {
        const req = tx.objectStore(table).getAll();
        req.onsuccess = () => {
          stores[table] = req.result as unknown[];
          if (i < journaled.length - 1) return;
          try {
            const bytes = writeImageAtomically(path, { format: IMAGE_FORMAT, version, stores });
            written(stores);
            resolvePromise(bytes);
          } catch (error) {
            reject(error as Error);
          }
        };
      });
    });
  } finally {
    idb.close();
  }
}

/** The page files that snapshot rows name. */
function filesNamedBy(rows: unknown[] | undefined): string[] {
  return (rows ?? []).flatMap((row) => {
    const payload = (row as { payload?: unknown } | null)?.payload;
    return isPayloadFile(payload) ? [payload.file] : [];
  });
}

function request<T>(req: IDBRequest | IDBOpenDBRequest): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    req.onsuccess = () => resolvePromise(req.result as T);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}
