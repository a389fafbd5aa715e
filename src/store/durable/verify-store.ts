import { scanJournal, type JournalScan } from './journal-file.js';
import { imageOf, scanImage, type StoreImage } from './store-image.js';
import { IMAGE_FILE, JOURNAL_FILE, type FileRead, type StoreFiles } from './store-files.js';

/** A store that opens: what to load, and what the open found. */
export interface OpenableStore {
  ok: true;
  /** The image to load, or null (none, or a damaged one the journal rebuilds without). */
  image: StoreImage | null;
  /** The journal's transactions that verify, in order (v8-serialized). */
  records: Buffer[];
  journal: JournalScan;
  /** A damaged image left out because the journal starts from an empty store and rebuilds everything. */
  imageLeftOut: { offset: number; reason: string } | null;
}

/** A store that does not open: the first damage that would lose verified data if the open went on. */
export interface DamagedStore {
  ok: false;
  file: typeof IMAGE_FILE | typeof JOURNAL_FILE;
  offset: number;
  reason: string;
}

/**
 * Decides whether a store's files open, never destroying data to do it (the
 * rule SQLite keeps):
 * - a journal's torn tail (bytes at its end that fail verification and hold
 *   no record that verifies) is what a crash mid-append leaves: it opens
 *   without it (the writable open cuts it, journal-file.ts);
 * - bytes that fail verification with a verified record after them are
 *   damage: the store does not open;
 * - an image that does not verify (damaged, cut short, empty, foreign, a
 *   folder) opens without it when the journal starts from an empty store,
 *   and otherwise does not open; a missing image that the journal follows
 *   does not open either.
 * A store that does not open is left as it is for `npx engram repair`.
 */
export function verifyStore(files: StoreFiles): OpenableStore | DamagedStore {
  if (files.journal.kind === 'unreadable') return { ok: false, file: JOURNAL_FILE, offset: 0, reason: files.journal.reason };
  const journal = scanJournal(files.journal.kind === 'bytes' ? files.journal.bytes : Buffer.alloc(0));
  const damage = journal.damaged[0];
  if (damage) return { ok: false, file: JOURNAL_FILE, offset: damage.offset, reason: `fails verification at byte ${damage.offset}, with valid records after it` };

  const image = readImageFile(files.image);
  let imageLeftOut: OpenableStore['imageLeftOut'] = null;
  if (image.problem) {
    if (journal.followsImage !== false) return { ok: false, file: IMAGE_FILE, offset: image.problem.offset, reason: image.problem.reason };
    imageLeftOut = image.problem;
  } else if (!image.image && journal.followsImage === true) {
    return { ok: false, file: IMAGE_FILE, offset: 0, reason: 'is missing, and the journal holds only what was written after it' };
  }
  return { ok: true, image: imageLeftOut ? null : image.image, records: journal.records.map((record) => record.payload), journal, imageLeftOut };
}

function readImageFile(read: FileRead): { image: StoreImage | null; problem?: { offset: number; reason: string } } {
  if (read.kind === 'missing') return { image: null };
  if (read.kind === 'unreadable') return { image: null, problem: { offset: 0, reason: read.reason } };
  const scan = scanImage(read.bytes);
  const problem = scan.problems[0];
  if (problem) return { image: null, problem: { offset: problem.offset, reason: `${problem.reason} at byte ${problem.offset}` } };
  return { image: imageOf(scan) };
}
