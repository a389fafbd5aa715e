import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { serialize } from 'node:v8';
import { deserializeOwned } from './own-buffers.js';

export const IMAGE_FORMAT = 1;

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

export function readImage(path: string): StoreImage | null {
  if (!existsSync(path)) return null;
  return deserializeOwned<StoreImage>(readFileSync(path));
}

/** Writes the image so that a crash at any moment leaves either the old image or the new one: temp file, sync, rename, sync the folder. */
export function writeImageAtomically(path: string, image: StoreImage): number {
  const bytes = serialize(image);
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDirectory(dirname(path));
  return bytes.length;
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
