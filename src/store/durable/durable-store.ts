import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { CorruptionError, StorageError, ValidationError } from '../../errors.js';
import { attachMiddleware } from '../factory-middlewares.js';
import { JournalFile } from './journal-file.js';
import { journalMiddleware, type JournalOp } from './journal-middleware.js';
import { IMAGE_FORMAT, syncDirectory, type StoreImage } from './store-image.js';
import { IMAGE_FILE, JOURNAL_FILE, readStoreFiles } from './store-files.js';
import { verifyStore, type DamagedStore, type OpenableStore } from './verify-store.js';
import { storeFolderName, storeNameProblem } from './store-name.js';
import { keepBeside } from './keep-beside.js';
import { acquireLock } from './store-lock.js';
import { PageFolder } from './page-folder.js';
import { createSchema, filesNamedBy, load, loadsAsIs, writeImage } from './idb-image.js';

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
