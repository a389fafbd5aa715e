import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../../errors.js';

/** One of a store's files as read: its bytes, none, or something that is not a readable file (a folder in its place). */
export type FileRead = { kind: 'bytes'; bytes: Buffer } | { kind: 'missing' } | { kind: 'unreadable'; reason: string };

/** A durable store's image and journal, read at one moment. */
export interface StoreFiles {
  image: FileRead;
  journal: FileRead;
}

export const IMAGE_FILE = 'image.v8';
export const JOURNAL_FILE = 'journal.log';

/** Times the files are read again when a compaction by the store's owner replaced the image meanwhile. */
const ATTEMPTS = 5;

/**
 * Reads a store's image and journal without changing anything, as one
 * snapshot even while another process owns the store and writes to it. The
 * owner's compaction writes a new image (a rename, so a new inode) before it
 * empties the journal, and appends only whole records after that: so if the
 * image path still names the inode that was read once the journal has been
 * read, the two belong together (a record being appended meanwhile is a torn
 * tail, left out). Otherwise they are read again.
 */
export function readStoreFiles(folder: string): StoreFiles {
  const imagePath = join(folder, IMAGE_FILE);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const image = readHeld(imagePath);
    try {
      const journal = readHeld(join(folder, JOURNAL_FILE));
      if (journal.fd !== undefined) closeSync(journal.fd);
      if (sameFile(image.stats, statOrNull(imagePath))) return { image: image.read, journal: journal.read };
    } finally {
      if (image.fd !== undefined) closeSync(image.fd);
    }
  }
  throw new StorageError(`The engram store in "${folder}" kept changing while it was read (its owner is compacting it): try again.`, { folder });
}

/** Reads a file, keeping it open (so its inode cannot be reused while it is compared). */
function readHeld(path: string): { read: FileRead; stats: Stats | null; fd?: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { read: { kind: 'missing' }, stats: null };
    return { read: { kind: 'unreadable', reason: `cannot be read (${code ?? (error as Error).message})` }, stats: null };
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) return { read: { kind: 'unreadable', reason: stats.isDirectory() ? 'is a folder, not a file' : 'is not a file' }, stats, fd };
  try {
    return { read: { kind: 'bytes', bytes: readFileSync(fd) }, stats, fd };
  } catch (error) {
    return { read: { kind: 'unreadable', reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` }, stats, fd };
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function sameFile(a: Stats | null, b: Stats | null): boolean {
  if (!a || !b) return a === b;
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs;
}
