/**
 * Where a snapshot page keeps its payload (its vectors and their norms,
 * snapshot-page.ts) when the engine runs in a dedicated worker of a browser
 * with the origin private file system: in a file of its own, written and
 * read with a sync access handle, instead of a Blob in IndexedDB. Reading
 * is the step an open waits for: a file is read synchronously into memory
 * the worker owns, where a Blob's bytes come back through the browser
 * process and a typed array inside a value is deserialised (copied) with it
 * (`npm run bench:payloads` compares the three); and each file is read into
 * one buffer reused from page to page instead of a fresh ArrayBuffer per page.
 *
 * The files belong to the snapshot as the page rows do: named by the page
 * row's key (fresh for every save: copy-on-write), each written after its
 * row and before the header transaction that names them. A page saved again
 * for its documents alone (access times, pins) keeps its file: its new row
 * names the file of the row it was re-encoded from, and so does the header
 * (`SnapshotHeader.pages[].file`), which is what a save keeps. A save lists the
 * files before its header transaction and deletes, once it commits, the
 * listed ones the header does not name: a file was listed only after its
 * row was written, so it is either named, or its row was swept by that
 * transaction (a page replaced, a save that did not commit, or another
 * engine's save in flight, which fails anyway because its rows are gone),
 * and files written since are left alone. A crash leaves files the next
 * save deletes. The header and the page rows stay in IndexedDB, so
 * whether the snapshot is current is decided as before; a page whose file
 * is missing or of another length makes the snapshot unusable, and the
 * engine reads the records. The durable Node store has its page files in
 * its folder (PageFileStore). Elsewhere (Node on another IndexedDB, the
 * main thread, a service worker, a browser without the file system) pages
 * keep their Blobs.
 */

import type { PageFileSource, PageFileWriter, PayloadFile } from '../store/page-file-store.js';


/** The part of a sync access handle used here (dedicated workers only, so not in TypeScript's DOM library). */
interface SyncAccessHandle {
  read(into: Uint8Array, options: { at: number }): number;
  write(from: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}
type FileHandle = FileSystemFileHandle & { createSyncAccessHandle?: () => Promise<SyncAccessHandle> };
type DirectoryHandle = FileSystemDirectoryHandle & { keys(): AsyncIterableIterator<string> };

const ROOT = 'engram-snapshots';

/** The folder of database `name`'s page files, or null where there is no origin private file system (or it refuses). */
async function folderOf(name: string, create: boolean): Promise<DirectoryHandle | null> {
  try {
    const storage = (globalThis as { navigator?: { storage?: { getDirectory?: () => Promise<FileSystemDirectoryHandle> } } }).navigator?.storage;
    if (typeof storage?.getDirectory !== 'function') return null;
    const root = await (await storage.getDirectory()).getDirectoryHandle(ROOT, { create });
    // Any database name is a valid folder name: no separators, and no "." or "..".
    return (await root.getDirectoryHandle(encodeURIComponent(name).replaceAll('.', '%2E'), { create })) as DirectoryHandle;
  } catch {
    return null;
  }
}

/** Writes and sweeps a database's page files; `open` gives none where files cannot be written with sync access handles. */
export class PageFiles implements PageFileWriter {
  private constructor(private readonly folder: DirectoryHandle) {}

  static async open(name: string): Promise<PageFiles | null> {
    if (typeof (globalThis as { FileSystemSyncAccessHandle?: unknown }).FileSystemSyncAccessHandle === 'undefined') return null;
    const folder = await folderOf(name, true);
    return folder && new PageFiles(folder);
  }

  /** Writes `parts` end to end to file `file` (replacing it), flushed to disk. */
  async write(file: string, parts: readonly ArrayBufferView[]): Promise<PayloadFile> {
    const handle = await syncHandle(await this.folder.getFileHandle(file, { create: true }));
    try {
      handle.truncate(0);
      let at = 0;
      for (const part of parts) at += handle.write(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), { at });
      handle.flush();
      return { file, bytes: at };
    } finally {
      handle.close();
    }
  }

  /** Deletes files `names`, those that exist; best effort: one another engine is reading stays for a later save to delete. */
  async remove(names: readonly string[]): Promise<void> {
    for (const name of names) await this.folder.removeEntry(name).catch(() => undefined);
  }

  /** The names of the files there now. */
  async list(): Promise<string[]> {
    const names: string[] = [];
    for await (const name of this.folder.keys()) names.push(name);
    return names;
  }
}

/**
 * Reads page files of database `name` one at a time into a buffer reused
 * from page to page (each page is copied into the index before the next is
 * read). Opening a file takes two trips to the browser process (its handle,
 * then a sync access handle), which an open waited out idle for every
 * page; so while one page is read and loaded, the
 * next one named is being opened.
 */
export class PageFileReader implements PageFileSource {
  private buffer = new Uint8Array(0);
  private folder: Promise<DirectoryHandle | null> | undefined;
  /** The file named as the next to read, being opened. */
  private ahead: { file: string; opened: Promise<OpenedFile | null> } | undefined;

  constructor(private readonly name: string) {}

  /**
   * The payload's bytes (valid until the next read), or null when the file
   * is missing, unreadable or of another length. `next`: the file read
   * after this one, opened meanwhile.
   */
  async read(ref: PayloadFile, next?: PayloadFile): Promise<Uint8Array | null> {
    const opening = this.ahead?.file === ref.file ? this.ahead.opened : this.open(ref.file);
    if (this.ahead && this.ahead.file !== ref.file) void closeOpened(this.ahead.opened);
    this.ahead = next ? { file: next.file, opened: this.open(next.file) } : undefined;
    const opened = await opening;
    if (!opened) return null;
    try {
      if (ref.bytes > this.buffer.length) this.buffer = new Uint8Array(ref.bytes);
      const into = this.buffer.subarray(0, ref.bytes);
      const { file, handle } = opened;
      if (handle) {
        if (handle.getSize() !== ref.bytes) return null;
        for (let at = 0; at < ref.bytes; ) {
          const read = handle.read(into.subarray(at), { at });
          if (read === 0) return null;
          at += read;
        }
      } else {
        // No sync access handle here (the main thread), or another engine holds one on this file: the file as a Blob.
        const blob = await file.getFile();
        if (blob.size !== ref.bytes) return null;
        into.set(new Uint8Array(await blob.arrayBuffer()));
      }
      return into;
    } catch {
      return null;
    } finally {
      opened.handle?.close();
    }
  }

  /** Closes the file opened ahead of a read that did not come (the open stopped early). */
  close(): void {
    if (this.ahead) void closeOpened(this.ahead.opened);
    this.ahead = undefined;
  }

  private async open(name: string): Promise<OpenedFile | null> {
    try {
      this.folder ??= folderOf(this.name, false);
      const folder = await this.folder;
      if (!folder) return null;
      const file = (await folder.getFileHandle(name)) as FileHandle;
      return { file, handle: await readHandle(file) };
    } catch {
      return null;
    }
  }
}

interface OpenedFile {
  file: FileHandle;
  handle: SyncAccessHandle | null;
}

async function closeOpened(opened: Promise<OpenedFile | null>): Promise<void> {
  (await opened)?.handle?.close();
}

/**
 * A handle to read `file` with, or null. Read-only handles (Chromium 121 on)
 * may be held by several engines at once; a plain one is exclusive, so a
 * second tab opening the same store at the same moment gets none, and
 * reads the file as a Blob instead of giving up the snapshot.
 */
async function readHandle(file: FileHandle): Promise<SyncAccessHandle | null> {
  if (typeof file.createSyncAccessHandle !== 'function') return null;
  const create = file.createSyncAccessHandle as (options?: { mode: 'read-only' }) => Promise<SyncAccessHandle>;
  try {
    return await create.call(file, { mode: 'read-only' });
  } catch {
    return null;
  }
}

async function syncHandle(file: FileSystemFileHandle): Promise<SyncAccessHandle> {
  const create = (file as FileHandle).createSyncAccessHandle;
  if (typeof create !== 'function') throw new Error('no sync access handles here');
  return create.call(file);
}
