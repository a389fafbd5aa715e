import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

/** Bytes before each record's payload: its length and its CRC-32, both little-endian u32. */
const HEADER = 8;

/**
 * The journal: an append-only file of records, one per committed transaction.
 * Each record is `length | crc32 | payload`; a record counts only if all of it
 * is there and its checksum matches, so a write cut short by a crash (a torn
 * tail) is recognised and dropped, never half-applied.
 */
export class JournalFile {
  private readonly fd: number;
  /** Bytes of whole records in the file. */
  size: number;

  private constructor(fd: number, size: number) {
    this.fd = fd;
    this.size = size;
  }

  /**
   * Opens (or creates) the journal, reads every whole record, and cuts off a
   * torn tail so the next append starts on a record boundary.
   */
  static open(path: string): { journal: JournalFile; records: Buffer[]; tornBytes: number } {
    const fd = openSync(path, 'a+');
    const bytes = fstatSync(fd).size > 0 ? readFileSync(path) : Buffer.alloc(0);
    const { records, end } = readRecords(bytes);
    if (end < bytes.length) {
      ftruncateSync(fd, end);
      fdatasyncSync(fd);
    }
    return { journal: new JournalFile(fd, end), records, tornBytes: bytes.length - end };
  }

  /** Appends one record and waits until the disk has it (fdatasync). Synchronous on purpose: see journal-middleware.ts. */
  append(payload: Uint8Array): void {
    const header = Buffer.allocUnsafe(HEADER);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32(payload), 4);
    const record = Buffer.concat([header, payload]);
    let written = 0;
    while (written < record.length) written += writeSync(this.fd, record, written, record.length - written);
    fdatasyncSync(this.fd);
    this.size += record.length;
  }

  /** Empties the journal once a compacted image holds everything in it. */
  reset(): void {
    ftruncateSync(this.fd, 0);
    fdatasyncSync(this.fd);
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The whole records at the start of `bytes`, and where they end (the rest is a torn tail). */
export function readRecords(bytes: Buffer): { records: Buffer[]; end: number } {
  const records: Buffer[] = [];
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const sum = bytes.readUInt32LE(at + 4);
    if (at + HEADER + length > bytes.length) break;
    const payload = bytes.subarray(at + HEADER, at + HEADER + length);
    if (crc32(payload) !== sum) break;
    records.push(payload);
    at += HEADER + length;
  }
  return { records, end: at };
}
