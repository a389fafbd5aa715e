import { closeSync, existsSync, fdatasyncSync, openSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deserialize } from 'node:v8';
import { IDBFactory } from 'fake-indexeddb';
import { StorageError, ValidationError } from '../../errors.js';
import { createSchema, load, loadsAsIs, writeImage } from './idb-image.js';
import { scanJournal, type JournalScan } from './journal-file.js';
import type { JournalOp } from './journal-middleware.js';
import { keepBeside } from './keep-beside.js';
import { IMAGE_FORMAT, scanImage, syncDirectory, type ImageScan } from './store-image.js';
import { IMAGE_FILE, JOURNAL_FILE, readStoreFiles, type FileRead } from './store-files.js';
import { acquireLock } from './store-lock.js';
import { storeFolderName, storeNameProblem } from './store-name.js';
import { verifyStore } from './verify-store.js';

/** Bytes of a store's file that a repair could not use. */
export interface DroppedRange {
  file: typeof IMAGE_FILE | typeof JOURNAL_FILE;
  offset: number;
  end: number;
  reason: string;
}

/** What `repairStore` did. */
export interface RepairReport {
  folder: string;
  /** False when the store opens as it is (nothing was written); then `dropped` is empty. */
  repaired: boolean;
  /** Rows taken from the image's chunks that verify, by object store, and the journal's transactions that verify. */
  kept: { imageRows: Record<string, number>; journalRecords: number };
  dropped: DroppedRange[];
  /** Rows that the image's header counts and no verified chunk holds, by object store (known when the header verifies). */
  lostRows: Record<string, number>;
  /** Bytes of the journal's torn tail (what a crash mid-append leaves; an open cuts it). */
  tornBytes: number;
  /** Where the damaged files are kept. */
  keptAside: string[];
}

/**
 * `npx engram repair`: writes a new store from every record of the old one
 * that verifies (the image's chunks of rows, then the journal's
 * transactions, in order) and keeps each damaged file beside it as
 * `<file>.damaged`. The index snapshot, a cache, is left out: the next open
 * rebuilds the index from the records. Holds the store's lock throughout.
 *
 * Crash-safe in the same way as a compaction: the damaged files are linked
 * aside first, the new image replaces the old one by rename, and only then
 * is the journal replaced by an empty one (a crash before that leaves the
 * new image and the old journal, which a second repair replays again onto
 * it to the same state).
 */
export async function repairStore(directory: string, name: string): Promise<RepairReport> {
  const problem = storeNameProblem(name);
  if (problem) throw new ValidationError(`repair: the store name "${name}" ${problem}.`, [{ path: 'name', message: problem }]);
  const folder = resolve(directory, storeFolderName(name));
  if (!existsSync(folder)) throw new StorageError(`There is no engram store "${name}" in "${resolve(directory)}".`, { folder });
  const release = acquireLock(join(folder, 'LOCK'), folder);
  try {
    const files = readStoreFiles(folder);
    if (files.image.kind === 'missing' && files.journal.kind === 'missing') throw new StorageError(`There is no engram store "${name}" in "${resolve(directory)}".`, { folder });
    const image = files.image.kind === 'bytes' ? scanImage(files.image.bytes) : null;
    const journal = scanJournal(files.journal.kind === 'bytes' ? files.journal.bytes : Buffer.alloc(0));
    const dropped = droppedRanges(files.image, image, files.journal, journal);
    const tornBytes = journal.tornAt === null ? 0 : journal.bytes - journal.tornAt;
    const verified = verifyStore(files);
    const report: RepairReport = { folder, repaired: false, kept: { imageRows: {}, journalRecords: 0 }, dropped: [], lostRows: {}, tornBytes, keptAside: [] };
    if (verified.ok && !verified.imageLeftOut) return report;

    const indexedDB = new IDBFactory();
    const version = await createSchema(indexedDB, name);
    const storedVersion = image?.header?.version ?? version;
    if (!loadsAsIs(storedVersion, version) || (image?.header?.format ?? 0) > IMAGE_FORMAT) {
      throw new StorageError(`The engram store in "${folder}" was written by another version of engram (schema ${storedVersion / 10}); repair it with that version.`, { folder });
    }
    const tables = await tableNames(indexedDB, name);
    const stores: Record<string, unknown[]> = {};
    for (const chunk of image?.chunks ?? []) {
      // The index snapshot is a cache: left out, it is rebuilt from the records at the next open.
      if (chunk.table === 'snapshot') continue;
      if (!tables.has(chunk.table)) {
        dropped.push({ file: IMAGE_FILE, offset: chunk.offset, end: chunk.end, reason: `rows of "${chunk.table}", an object store this version does not have` });
        continue;
      }
      const rows = (stores[chunk.table] ??= []);
      for (const row of chunk.rows) rows.push(row);
      report.kept.imageRows[chunk.table] = (report.kept.imageRows[chunk.table] ?? 0) + chunk.rows.length;
    }
    const transactions: JournalOp[][] = [];
    for (const record of journal.records) {
      const ops = deserializeOrNull(record.payload);
      if (Array.isArray(ops) && ops.every((op) => tables.has((op as JournalOp | null)?.table as string))) transactions.push(ops as JournalOp[]);
      else dropped.push({ file: JOURNAL_FILE, offset: record.offset, end: record.end, reason: 'a record that verifies but is not a transaction of this store' });
    }
    report.kept.journalRecords = transactions.length;
    if (image?.header) {
      for (const [table, count] of Object.entries(image.header.rows)) {
        if (table === 'snapshot') continue;
        const lost = count - (report.kept.imageRows[table] ?? 0);
        if (lost > 0) report.lostRows[table] = lost;
      }
    }
    await load(indexedDB, name, { format: IMAGE_FORMAT, version, stores }, transactions);

    const imagePath = join(folder, IMAGE_FILE);
    const journalPath = join(folder, JOURNAL_FILE);
    if (files.image.kind === 'unreadable' || (image && image.problems.length > 0)) report.keptAside.push(keepBeside(imagePath));
    if (files.journal.kind === 'unreadable' || journal.damaged.length > 0 || journal.tornAt !== null) report.keptAside.push(keepBeside(journalPath));
    await writeImage(indexedDB, name, version, imagePath, () => undefined);
    emptyJournal(journalPath);
    report.repaired = true;
    report.dropped = dropped.sort((a, b) => a.file.localeCompare(b.file) || a.offset - b.offset);
    return report;
  } finally {
    release();
  }
}

function droppedRanges(imageRead: FileRead, image: ImageScan | null, journalRead: FileRead, journal: JournalScan): DroppedRange[] {
  const dropped: DroppedRange[] = [];
  if (imageRead.kind === 'unreadable') dropped.push({ file: IMAGE_FILE, offset: 0, end: 0, reason: imageRead.reason });
  for (const problem of image?.problems ?? []) dropped.push({ file: IMAGE_FILE, ...problem });
  if (journalRead.kind === 'unreadable') dropped.push({ file: JOURNAL_FILE, offset: 0, end: 0, reason: journalRead.reason });
  for (const range of journal.damaged) dropped.push({ file: JOURNAL_FILE, ...range, reason: 'fails verification' });
  if (journal.tornAt !== null) dropped.push({ file: JOURNAL_FILE, offset: journal.tornAt, end: journal.bytes, reason: 'a torn tail (a write cut short)' });
  return dropped;
}

async function tableNames(indexedDB: IDBFactory, name: string): Promise<Set<string>> {
  const idb = await new Promise<IDBDatabase>((resolvePromise, reject) => {
    const req = indexedDB.open(name);
    req.onsuccess = () => resolvePromise(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB open failed'));
  });
  try {
    return new Set(idb.objectStoreNames);
  } finally {
    idb.close();
  }
}

function deserializeOrNull(bytes: Uint8Array): unknown {
  try {
    return deserialize(bytes);
  } catch {
    return null;
  }
}

/** Replaces the journal by an empty file (temp file, sync, rename, sync the folder): the new image holds everything. */
function emptyJournal(path: string): void {
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDirectory(join(path, '..'));
}
