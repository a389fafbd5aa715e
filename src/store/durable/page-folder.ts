import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { PageFileStore, PayloadFile } from '../page-file-store.js';
import { syncDirectory } from './store-image.js';
import { StorageError } from '../../errors.js';

/**
 * The durable store's folder for the index snapshot's page payloads (the
 * vectors of each page, see index-sync/page-files.ts for the rules
 * that keep files and page rows together). As IndexedDB values they were
 * Blobs in the store's image, each read back at open through Node's Blob
 * reader, a large part of the cold start. As files they stay out of the
 * image and its compactions, and the open reads each one into a buffer
 * reused from page to page.
 *
 * A file is synced to disk before the snapshot header that names it is
 * committed (and journaled), so a header on disk never names a file that a
 * power cut could leave torn; a file whose directory entry a power cut lost
 * is missing, which makes the engine read the records instead. Names are
 * page keys (`page:3:<id>`), encoded so that any file system takes them.
 */
export class PageFolder implements PageFileStore {
  private buffer = new Uint8Array(0);
  private created = false;
  /**
   * The files the compacted image on disk names. Snapshot rows are not
   * journaled (journal-middleware.ts), so after a process killed without
   * close() the next open finds the image's snapshot, not the last one
   * saved, and replays the write log onto it: its files must outlive the
   * saves that replace them, until an image that no longer names them
   * is on disk.
   */
  private kept = new Set<string>();

  /** `readOnly`: a read-only open's (durable-store.ts): files are read, never written or removed. */
  constructor(
    private readonly folder: string,
    private readonly options: { readOnly?: boolean } = {},
  ) {}

  /** The files the image now on disk names (after a load or a compaction). */
  keep(names: Iterable<string>): void {
    this.kept = new Set(names);
  }

  /** Deletes every file the image on disk does not name; for the store's close, once no save can run. */
  async sweep(): Promise<void> {
    if (this.options.readOnly) return;
    await this.remove(await this.list());
  }

  async write(file: string, parts: readonly ArrayBufferView[]): Promise<PayloadFile> {
    // An index snapshot save fails, as a cache's may: the next open rebuilds what it would have saved.
    if (this.options.readOnly) throw new StorageError(`The engram store in "${this.folder}" was opened read-only: the index snapshot is not saved.`, { folder: this.folder });
    if (!this.created) {
      mkdirSync(this.folder, { recursive: true });
      this.created = true;
    }
    const fd = openSync(this.pathOf(file), 'w');
    let bytes = 0;
    try {
      for (const part of parts) {
        const view = new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
        for (let at = 0; at < view.length; ) at += writeSync(fd, view, at, view.length - at);
        bytes += view.length;
      }
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { file, bytes };
  }

  async remove(names: readonly string[]): Promise<void> {
    if (this.options.readOnly) return;
    for (const name of names) {
      if (this.kept.has(name)) continue;
      try {
        unlinkSync(this.pathOf(name));
      } catch {
        // Gone already, or not removable now: a later save sweeps it.
      }
    }
    if (names.some((name) => !this.kept.has(name))) syncDirectoryIfThere(this.folder);
  }

  async list(): Promise<string[]> {
    try {
      return readdirSync(this.folder).flatMap((name) => {
        try {
          return [decodeURIComponent(name)];
        } catch {
          return []; // not a page file's name: not ours to sweep
        }
      });
    } catch {
      return [];
    }
  }

  async read(ref: PayloadFile): Promise<Uint8Array | null> {
    let fd: number;
    try {
      fd = openSync(this.pathOf(ref.file), 'r');
    } catch {
      return null;
    }
    try {
      if (fstatSync(fd).size !== ref.bytes) return null;
      if (ref.bytes > this.buffer.length) this.buffer = new Uint8Array(ref.bytes);
      const into = this.buffer.subarray(0, ref.bytes);
      for (let at = 0; at < ref.bytes; ) {
        const read = readSync(fd, into, at, ref.bytes - at, at);
        if (read === 0) return null;
        at += read;
      }
      return into;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  private pathOf(file: string): string {
    // encodeURIComponent leaves no separator, and "." is encoded so no name is "." or "..".
    return join(this.folder, encodeURIComponent(file).replaceAll('.', '%2E'));
  }
}

function syncDirectoryIfThere(folder: string): void {
  try {
    syncDirectory(folder);
  } catch {
    // No folder yet: nothing was removed from it.
  }
}
