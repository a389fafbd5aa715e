import { readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';

/**
 * LevelDB's write-ahead log, read the way LevelDB's own log reader reads it
 * (https://github.com/google/leveldb/blob/main/doc/log_format.md): 32 KiB
 * blocks of physical records, each a 7-byte header (masked CRC-32C of type
 * and payload, length, type: 1 full, 2 first, 3 middle, 4 last) and its
 * payload.
 *
 * Why a test needs it: Chromium appends a record's header and its payload
 * with separate writes, so a SIGKILL between them leaves a torn last record.
 * LevelDB reads that as the end of the log (correct), but Chromium then
 * reuses the log and appends the next session's records after the torn
 * bytes; at the next start the torn record is no longer at the end,
 * LevelDB reports "Corruption: checksum mismatch", and Chromium deletes the
 * origin's whole IndexedDB (seen in test/browser/crash-on-disk.test.ts with
 * Chromium 156; no page can prevent it). `cutTornTail` does between two
 * browser lives what LevelDB's reader already decided: the log ends at the
 * last complete record.
 */

const BLOCK = 32 * 1024;
const HEADER = 7;

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32c(bytes: Uint8Array, start: number, end: number, seed = 0): number {
  let crc = ~seed >>> 0;
  for (let i = start; i < end; i++) crc = (CRC32C_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)) >>> 0;
  return ~crc >>> 0;
}

function unmask(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/** Where the log's last complete logical record ends, and whether every record before it checks out. */
export function scanLog(bytes: Uint8Array): { end: number; records: number; corrupt: boolean } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  let end = 0;
  let records = 0;
  let inFragment = false;
  while (offset < bytes.length) {
    const left = BLOCK - (offset % BLOCK);
    if (left < HEADER) {
      offset += left; // a block's trailer: zero padding
      continue;
    }
    if (offset + HEADER > bytes.length) break; // a torn header
    const length = view.getUint16(offset + 4, true);
    const type = bytes[offset + 6]!;
    if (offset + HEADER + length > bytes.length) break; // a torn payload
    if (type === 0 && length === 0) {
      offset += left; // zeroed rest of a block
      continue;
    }
    const expected = unmask(view.getUint32(offset, true));
    const actual = crc32c(bytes, offset + HEADER, offset + HEADER + length, crc32c(bytes, offset + 6, offset + 7));
    if (actual !== expected) return { end, records, corrupt: true };
    offset += HEADER + length;
    if (type === 1 || type === 4) {
      if (type === 4 && !inFragment) return { end, records, corrupt: true };
      inFragment = false;
      records++;
      end = offset;
    } else if (type === 2) inFragment = true;
    else if (type !== 3 || !inFragment) return { end, records, corrupt: true };
  }
  return { end, records, corrupt: false };
}

/**
 * Cuts a torn last record from every LevelDB log under `dir` (a profile's
 * IndexedDB folder). Returns how many logs had one. A log with a bad record
 * before its end is left as it is: that is real corruption, for the test to see.
 */
export function cutTornTail(dir: string): number {
  let cut = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.log') || !entry.includes('.leveldb')) continue;
    const path = join(dir, entry);
    const bytes = readFileSync(path);
    const { end, corrupt } = scanLog(bytes);
    if (!corrupt && end < bytes.length) {
      truncateSync(path, end);
      cut++;
    }
  }
  return cut;
}
