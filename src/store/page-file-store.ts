/**
 * How a stored snapshot page refers to its payload when the payload lives in
 * a file rather than a Blob, and the interfaces a folder of such files
 * offers: the origin private file system (index-sync/page-files.ts) or a
 * durable Node store's folder (store/durable/page-folder.ts). The store
 * needs these to compact and sweep its folder without knowing how the
 * index uses the pages.
 */

/** A page's payload in a file: its name in the database's folder and its length. */
export interface PayloadFile {
  file: string;
  bytes: number;
}

/**
 * Where a snapshot's page files are written and swept: the origin private
 * file system (PageFiles, below), or a durable Node store's folder
 * (store/durable/page-folder.ts). The rules above hold for both.
 */
export interface PageFileWriter {
  /** Writes `parts` end to end to file `file` (replacing it), on disk when it resolves. */
  write(file: string, parts: readonly ArrayBufferView[]): Promise<PayloadFile>;
  /** Deletes files `names`, those that exist; best effort. */
  remove(names: readonly string[]): Promise<void>;
  /** The names of the files there now. */
  list(): Promise<string[]>;
}

/** Reads page files back. */
export interface PageFileSource {
  /**
   * The payload's bytes (valid until the next read), or null when the file
   * is missing, unreadable or of another length. `next` names the file to
   * be read after this one, which a source may start opening meanwhile.
   */
  read(ref: PayloadFile, next?: PayloadFile): Promise<Uint8Array | null>;
  /** Lets go of a file opened ahead for a read that will not come. */
  close?(): void;
}

/** Both: a store that brings its own folder for page files (the durable Node store). */
export type PageFileStore = PageFileWriter & PageFileSource;

/** Whether `payload` names a page file (rather than being a Blob). */
export function isPayloadFile(payload: unknown): payload is PayloadFile {
  const ref = payload as Partial<PayloadFile> | null;
  return typeof ref === 'object' && ref !== null && typeof ref.file === 'string' && Number.isSafeInteger(ref.bytes) && ref.bytes! >= 0;
}
