import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { serialize } from 'node:v8';
import { deserializeOwned } from './own-buffers.js';
import { frame, FRAME_MAGIC, nextHeader, scanFrames } from './record-frames.js';

/** The image format this version writes: a header record, then chunks of rows, each framed as record-frames.ts says. */
export const IMAGE_FORMAT = 2;

/**
 * A compacted image: every row of every object store at one moment, which is
 * the store's state before the journal is replayed. Blobs (the index
 * snapshot's payloads) are kept as bytes and turned back into Blobs at load.
 */
export interface StoreImage {
  format: number;
  /** The IndexedDB version (Dexie's schema version × 10) the rows were written under. */
  version: number;
  stores: Record<string, unknown[]>;
}

interface BlobBytes {
  __engramBlob: Uint8Array;
  type: string;
}

/** The image's first record: its format, schema version, and how many rows each object store has (so a missing chunk is seen). */
interface ImageHeader {
  format: number;
  version: number;
  rows: Record<string, number>;
}

/** The image's other records: rows of one object store. */
interface ImageChunk {
  table: string;
  rows: unknown[];
}

/** Rows per record at first; halved for the next records of a table while a record's payload is over CHUNK_BYTES. */
const CHUNK_ROWS = 256;
const CHUNK_BYTES = 1 << 20;

/** A chunk of rows that verified, where it is in the file. */
export interface VerifiedChunk {
  offset: number;
  end: number;
  table: string;
  rows: unknown[];
}

/** Where an image fails verification, and how. */
export interface ImageProblem {
  offset: number;
  end: number;
  reason: string;
}

/** What an image file holds, read without changing it. */
export interface ImageScan {
  /** null when the header is damaged or the file is not an image. */
  header: { format: number; version: number; rows: Record<string, number> } | null;
  chunks: VerifiedChunk[];
  /** Empty when the image verifies whole. */
  problems: ImageProblem[];
}

/**
 * Reads an image's bytes: its header and every chunk of rows that verifies,
 * and where it does not (damage, a cut-short file, chunks missing from the
 * end, bytes that are not an image at all). An image is written whole
 * (writeImageAtomically), so anything short of all of it is damage.
 */
export function scanImage(bytes: Buffer): ImageScan {
  if (bytes.length === 0) return { header: null, chunks: [], problems: [{ offset: 0, end: 0, reason: 'is empty' }] };
  if (!bytes.subarray(0, FRAME_MAGIC.length).equals(FRAME_MAGIC)) {
    const unframed = scanUnframed(bytes);
    // A framed image whose first bytes are damaged is still read as one.
    if (unframed.problems.length === 0 || nextHeader(bytes, 0) === -1) return unframed;
  }
  const scan = scanFrames(bytes);
  const problems: ImageProblem[] = scan.damaged.map((range) => ({ ...range, reason: 'fails its checksum' }));
  if (scan.tornAt !== null) problems.push({ offset: scan.tornAt, end: bytes.length, reason: 'is cut short' });
  let header: ImageScan['header'] = null;
  const chunks: VerifiedChunk[] = [];
  for (const record of scan.records) {
    const value = deserializeOrNull(record.payload);
    if (record.offset === 0 && isHeader(value)) header = value;
    else if (isChunk(value)) chunks.push({ offset: record.offset, end: record.end, table: value.table, rows: value.rows });
    else problems.push({ offset: record.offset, end: record.end, reason: 'holds a record that is not part of an image' });
  }
  if (problems.length === 0) {
    if (!header) problems.push({ offset: 0, end: 0, reason: 'has no image header' });
    else if (!rowsMatch(header.rows, chunks)) problems.push({ offset: bytes.length, end: bytes.length, reason: 'ends before all its rows' });
  }
  problems.sort((a, b) => a.offset - b.offset);
  return { header, chunks, problems };
}

/** The rows of a scanned image, by object store: the image the open loads (only when it has no problems). */
export function imageOf(scan: ImageScan): StoreImage {
  const stores: Record<string, unknown[]> = {};
  for (const table of Object.keys(scan.header?.rows ?? {})) stores[table] = [];
  for (const chunk of scan.chunks) {
    const rows = (stores[chunk.table] ??= []);
    if (rows.length === 0) stores[chunk.table] = chunk.rows;
    else for (const row of chunk.rows) rows.push(row);
  }
  return { format: scan.header?.format ?? IMAGE_FORMAT, version: scan.header?.version ?? 0, stores };
}

/** An image of the older format (1): the whole image as one v8-serialized value, with no checksum. */
function scanUnframed(bytes: Buffer): ImageScan {
  const value = deserializeOrNull(bytes) as Partial<StoreImage> | null;
  if (!value || typeof value !== 'object' || typeof value.format !== 'number' || typeof value.version !== 'number' || !value.stores || typeof value.stores !== 'object' || !Object.values(value.stores).every(Array.isArray)) {
    return { header: null, chunks: [], problems: [{ offset: 0, end: bytes.length, reason: 'is not an engram image' }] };
  }
  const stores = value.stores as Record<string, unknown[]>;
  const rows = Object.fromEntries(Object.entries(stores).map(([table, list]) => [table, list.length]));
  return {
    header: { format: value.format, version: value.version, rows },
    chunks: Object.entries(stores).map(([table, list]) => ({ offset: 0, end: bytes.length, table, rows: list })),
    problems: [],
  };
}

function deserializeOrNull(bytes: Uint8Array): unknown {
  try {
    return deserializeOwned<unknown>(bytes);
  } catch {
    return null;
  }
}

function isHeader(value: unknown): value is ImageHeader {
  const header = value as Partial<ImageHeader> | null;
  return !!header && typeof header === 'object' && typeof header.format === 'number' && typeof header.version === 'number' && !!header.rows && typeof header.rows === 'object' && !('table' in header);
}

function isChunk(value: unknown): value is ImageChunk {
  const chunk = value as Partial<ImageChunk> | null;
  return !!chunk && typeof chunk === 'object' && typeof chunk.table === 'string' && Array.isArray(chunk.rows);
}

function rowsMatch(expected: Record<string, number>, chunks: VerifiedChunk[]): boolean {
  const found = new Map<string, number>();
  for (const chunk of chunks) found.set(chunk.table, (found.get(chunk.table) ?? 0) + chunk.rows.length);
  if ([...found.keys()].some((table) => !(table in expected))) return false;
  return Object.entries(expected).every(([table, count]) => (found.get(table) ?? 0) === count);
}

/** The image's records: its header, then each object store's rows in chunks. */
function imageRecords(image: StoreImage): Buffer[] {
  const rows = Object.fromEntries(Object.entries(image.stores).map(([table, list]) => [table, list.length]));
  const records = [frame(serialize({ format: image.format, version: image.version, rows } satisfies ImageHeader))];
  for (const [table, list] of Object.entries(image.stores)) {
    let size = CHUNK_ROWS;
    for (let start = 0; start < list.length; ) {
      const payload = serialize({ table, rows: list.slice(start, start + size) } satisfies ImageChunk);
      records.push(frame(payload));
      start += size;
      if (payload.length > CHUNK_BYTES && size > 1) size = Math.max(1, size >> 1);
    }
  }
  return records;
}

/** The image at `path`, or null when there is none; throws when it does not verify whole. (The open reads through verify-store.ts.) */
export function readImage(path: string): StoreImage | null {
  if (!existsSync(path)) return null;
  const scan = scanImage(readFileSync(path));
  const problem = scan.problems[0];
  if (problem) throw new Error(`${path} ${problem.reason} at byte ${problem.offset}`);
  return imageOf(scan);
}

/** Writes the image so that a crash at any moment leaves either the old image or the new one: temp file, sync, rename, sync the folder. */
export function writeImageAtomically(path: string, image: StoreImage): number {
  const records = imageRecords(image);
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  let bytes = 0;
  try {
    for (const record of records) {
      for (let written = 0; written < record.length; ) written += writeSync(fd, record, written, record.length - written);
      bytes += record.length;
    }
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDirectory(dirname(path));
  return bytes;
}

/** Makes a created or renamed file's directory entry durable. */
export function syncDirectory(directory: string): void {
  const fd = openSync(directory, 'r');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replaces Blobs in a row's top-level fields by their bytes (async: Blobs are read with arrayBuffer()). */
export async function blobsToBytes(row: unknown): Promise<unknown> {
  if (!row || typeof row !== 'object') return row;
  const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const [field, value] of Object.entries(out)) {
    if (value instanceof Blob) out[field] = { __engramBlob: new Uint8Array(await value.arrayBuffer()), type: value.type } satisfies BlobBytes;
  }
  return out;
}

export function bytesToBlobs(row: unknown): unknown {
  if (!row || typeof row !== 'object') return row;
  const out = row as Record<string, unknown>;
  for (const [field, value] of Object.entries(out)) {
    const bytes = value as Partial<BlobBytes> | null;
    if (bytes && typeof bytes === 'object' && bytes.__engramBlob instanceof Uint8Array) {
      out[field] = new Blob([bytes.__engramBlob as Uint8Array<ArrayBuffer>], { type: bytes.type ?? '' });
    }
  }
  return out;
}
