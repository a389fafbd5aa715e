import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { crc32 } from 'node:zlib';
import { frame, FRAME_MAGIC, nextHeader, scanFrames, type DamagedRange, type FoundRecord } from './record-frames.js';

/**
 * The first record of a journal in the current framing: whether the journal
 * follows a compacted image (it holds only what was committed after one) or
 * starts from an empty store (it alone rebuilds the store, even without its
 * image).
 */
interface JournalBase {
  engramJournal: 2;
  followsImage: boolean;
}

/** What a journal holds, read without changing it. */
export interface JournalScan {
  /** 2: records framed as record-frames.ts says; 1: the older `length | crc32 | payload` framing. */
  format: 1 | 2;
  /** From the journal's first record (format 2); null when it has none (empty, older framing, or that record is damaged). */
  followsImage: boolean | null;
  /** The transactions that verify, in order. */
  records: FoundRecord[];
  /** Bytes that fail verification with a verified record after them. */
  damaged: DamagedRange[];
  /** Where a torn tail starts (bytes that fail verification, with no verified record after them); null if none. */
  tornAt: number | null;
  /** Bytes of the file. */
  bytes: number;
}

/** Reads a journal's bytes: every record that verifies, the damage, the torn tail. */
export function scanJournal(bytes: Buffer): JournalScan {
  const format = journalFormat(bytes);
  const scan = format === 2 ? scanFrames(bytes) : scanLegacy(bytes);
  let followsImage: boolean | null = null;
  const first = scan.records[0];
  if (format === 2 && first?.offset === 0) {
    const base = baseOf(first.payload);
    if (base) {
      followsImage = base.followsImage;
      scan.records.shift();
    }
  }
  return { format, followsImage, records: scan.records, damaged: scan.damaged, tornAt: scan.tornAt, bytes: bytes.length };
}

/**
 * The framing a journal uses: one that starts with the frame magic, or whose
 * first bytes are not a record of the older framing but hold a frame header
 * somewhere (a current journal whose first record is damaged), is current;
 * an empty one is written in the current framing.
 */
function journalFormat(bytes: Buffer): 1 | 2 {
  if (bytes.length === 0 || bytes.subarray(0, FRAME_MAGIC.length).equals(FRAME_MAGIC)) return 2;
  if (legacyAt(bytes, 0)) return 1;
  return nextHeader(bytes, 0) === -1 ? 1 : 2;
}

function baseOf(payload: Buffer): JournalBase | null {
  // Transactions are arrays (v8's array tags after its 2-byte header); the base is an object.
  if (ARRAY_TAGS.has(payload[2]!)) return null;
  try {
    const base = deserialize(payload) as Partial<JournalBase> | null;
    return base && base.engramJournal === 2 && typeof base.followsImage === 'boolean' ? (base as JournalBase) : null;
  } catch {
    return null;
  }
}

/**
 * The journal: an append-only file of records, one per committed transaction
 * (framed as record-frames.ts says), after one record saying what the
 * journal follows. A record counts only if all of it is there and verifies.
 * The open cuts only a torn tail: bytes at the end that fail verification
 * and hold no record that verifies, which is what a write cut short by a
 * crash leaves. Damage with verified records after it is never cut (see
 * verify-store.ts, which refuses to open such a store).
 */
export class JournalFile {
  private readonly fd: number;
  /** Bytes of whole records in the file. */
  size: number;
  private format: 1 | 2;
  private followsImage: boolean;

  private constructor(fd: number, size: number, format: 1 | 2, followsImage: boolean) {
    this.fd = fd;
    this.size = size;
    this.format = format;
    this.followsImage = followsImage;
  }

  /**
   * Opens (or creates) the journal that `scan` read, and cuts its torn tail,
   * if any, so the next append starts on a record boundary. `followsImage`:
   * whether an image is on disk, for the first record of an empty journal.
   */
  static open(path: string, scan: JournalScan, followsImage: boolean): JournalFile {
    if (scan.damaged.length > 0) throw new Error('a damaged journal is never opened for writing (verify-store.ts refuses it first)');
    const fd = openSync(path, 'a+');
    const end = scan.tornAt ?? scan.bytes;
    if (fstatSync(fd).size > end) {
      ftruncateSync(fd, end);
      fdatasyncSync(fd);
    }
    return new JournalFile(fd, end, end === 0 ? 2 : scan.format, followsImage);
  }

  /** Appends one record and waits until the disk has it (fdatasync). Synchronous on purpose: see journal-middleware.ts. */
  append(payload: Uint8Array): void {
    let bytes: Buffer;
    if (this.size === 0) {
      // An empty journal is written in the current framing, its first record saying what it follows.
      this.format = 2;
      bytes = Buffer.concat([frame(serialize({ engramJournal: 2, followsImage: this.followsImage } satisfies JournalBase)), frame(payload)]);
    } else bytes = this.format === 2 ? frame(payload) : legacyFrame(payload);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    fdatasyncSync(this.fd);
    this.size += bytes.length;
  }

  /** Empties the journal once a compacted image holds everything in it. */
  reset(): void {
    ftruncateSync(this.fd, 0);
    fdatasyncSync(this.fd);
    this.size = 0;
    this.followsImage = true;
  }

  close(): void {
    closeSync(this.fd);
  }
}

// ---------- the older framing: `length | crc32 | payload`, read and appended to until the next compaction ----------

const LEGACY_HEADER = 8;
/** v8's tags for a dense ('A') and a sparse ('a') array, one of which is the third byte of every serialized transaction. */
const ARRAY_TAGS: ReadonlySet<number> = new Set([0x41, 0x61]);

function legacyFrame(payload: Uint8Array): Buffer {
  const header = Buffer.allocUnsafe(LEGACY_HEADER);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

function legacyAt(bytes: Buffer, at: number): FoundRecord | null {
  if (at + LEGACY_HEADER > bytes.length) return null;
  const end = at + LEGACY_HEADER + bytes.readUInt32LE(at);
  if (end > bytes.length) return null;
  const payload = bytes.subarray(at + LEGACY_HEADER, end);
  return crc32(payload) === bytes.readUInt32LE(at + 4) ? { offset: at, end, payload } : null;
}

/**
 * The older framing has no magic and no checksum over the length: after a
 * record that fails, every later offset whose length fits and whose payload
 * starts as a serialized transaction does (v8's version byte 0xFF, an
 * array tag) is checked, so damage is never taken for a torn tail.
 */
function scanLegacy(bytes: Buffer): { records: FoundRecord[]; damaged: DamagedRange[]; tornAt: number | null } {
  const records: FoundRecord[] = [];
  const damaged: DamagedRange[] = [];
  let at = 0;
  while (at < bytes.length) {
    const record = legacyAt(bytes, at);
    if (record) {
      records.push(record);
      at = record.end;
      continue;
    }
    const next = nextLegacy(bytes, at + 1);
    if (next === -1) return { records, damaged, tornAt: at };
    damaged.push({ offset: at, end: next });
    at = next;
  }
  return { records, damaged, tornAt: null };
}

function nextLegacy(bytes: Buffer, from: number): number {
  for (let at = from; at + LEGACY_HEADER + 3 <= bytes.length; at++) {
    if (bytes[at + LEGACY_HEADER] !== 0xff || !ARRAY_TAGS.has(bytes[at + LEGACY_HEADER + 2]!)) continue;
    if (legacyAt(bytes, at)) return at;
  }
  return -1;
}
