import { crc32 } from 'node:zlib';

/**
 * The framing of every record in a durable store's files (the journal's
 * transactions, the image's chunks of rows):
 *
 *     magic (4) | payload length (u32 LE) | crc32(payload) | crc32(the 12 bytes before) | payload
 *
 * The header's own checksum makes a length trustworthy once it verifies, so
 * a damaged length can never pass for a record that runs past the end of the
 * file (a torn tail), and a record whose payload is damaged still says where
 * the next one starts. The magic makes looking for the next record after
 * damage cheap: `indexOf` finds the candidates, and a 12-byte checksum
 * rejects almost all false ones before any payload is read.
 *
 * As a little-endian u32 the magic is over 2.9 GB, a length that no record of
 * the older framing (`length | crc32 | payload`, journal-file.ts reads it)
 * can have, so a file that starts with it uses this framing.
 */
export const FRAME_MAGIC = Buffer.from([0xee, 0x6a, 0x72, 0xb2]);
export const FRAME_HEADER_BYTES = 16;

/** The header of a record holding `payload`; write it, then the payload. */
export function frameHeader(payload: Uint8Array): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  FRAME_MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.length, 4);
  header.writeUInt32LE(crc32(payload), 8);
  header.writeUInt32LE(crc32(header.subarray(0, 12)), 12);
  return header;
}

/** One record, framed. */
export function frame(payload: Uint8Array): Buffer {
  return Buffer.concat([frameHeader(payload), payload]);
}

/** What is at an offset: a record that verifies, or why not. */
export type FrameAt =
  | { kind: 'record'; payload: Buffer; end: number }
  /** No header that verifies starts here (damaged, cut short, or not a record at all). */
  | { kind: 'no-header' }
  /** A header that verifies, for a record that runs past the end of the bytes. */
  | { kind: 'cut-short'; end: number }
  /** A header that verifies, whose payload fails its checksum: the next record starts at `end`. */
  | { kind: 'bad-payload'; end: number };

export function frameAt(bytes: Buffer, at: number): FrameAt {
  if (!headerVerifies(bytes, at)) return { kind: 'no-header' };
  const end = at + FRAME_HEADER_BYTES + bytes.readUInt32LE(at + 4);
  if (end > bytes.length) return { kind: 'cut-short', end };
  const payload = bytes.subarray(at + FRAME_HEADER_BYTES, end);
  if (crc32(payload) !== bytes.readUInt32LE(at + 8)) return { kind: 'bad-payload', end };
  return { kind: 'record', payload, end };
}

function headerVerifies(bytes: Buffer, at: number): boolean {
  if (at + FRAME_HEADER_BYTES > bytes.length) return false;
  for (let i = 0; i < FRAME_MAGIC.length; i++) if (bytes[at + i] !== FRAME_MAGIC[i]) return false;
  return crc32(bytes.subarray(at, at + 12)) === bytes.readUInt32LE(at + 12);
}

/** The first offset at or after `from` where a header verifies, or -1. */
export function nextHeader(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(FRAME_MAGIC, from); at !== -1; at = bytes.indexOf(FRAME_MAGIC, at + 1)) {
    if (headerVerifies(bytes, at)) return at;
  }
  return -1;
}

/** A record that verified, where it is in its file. */
export interface FoundRecord {
  offset: number;
  end: number;
  payload: Buffer;
}

/** Bytes that fail verification. */
export interface DamagedRange {
  offset: number;
  end: number;
}

export interface FrameScan {
  records: FoundRecord[];
  /** Ranges that fail verification with a verified record after them: damage, never a torn tail. */
  damaged: DamagedRange[];
  /** Where the bytes after the last verified record start, when they fail verification and hold no record that verifies (a torn tail); null when the records reach the end. */
  tornAt: number | null;
}

/**
 * Every record in `bytes` that verifies, from `start`. After bytes that fail,
 * the scan goes on at the next header that verifies: a damaged record whose
 * header verifies is skipped whole (a record found inside another's payload
 * would be data, not a record), else every later offset is a candidate. What
 * fails with no verified record after it is the tail.
 */
export function scanFrames(bytes: Buffer, start = 0): FrameScan {
  const records: FoundRecord[] = [];
  const damaged: DamagedRange[] = [];
  let failedAt = -1;
  let at = start;
  while (at < bytes.length) {
    const found = frameAt(bytes, at);
    if (found.kind === 'record') {
      if (failedAt >= 0) damaged.push({ offset: failedAt, end: at });
      failedAt = -1;
      records.push({ offset: at, end: found.end, payload: found.payload });
      at = found.end;
      continue;
    }
    if (failedAt < 0) failedAt = at;
    // A verified header's length is its record's: what follows inside it is the record's own bytes.
    if (found.kind === 'cut-short') break;
    if (found.kind === 'bad-payload') {
      at = found.end;
      continue;
    }
    at = nextHeader(bytes, at + 1);
    if (at === -1) break;
  }
  return { records, damaged, tornAt: failedAt >= 0 ? failedAt : null };
}
