import type { EngramDatabase } from '../store/database.js';
import { memoryKinds } from '../memories/registry.js';
import type { MemoryIndex } from '../search/memory-index.js';
import { adoptDocs, loadBatch, reserveRows, type IndexChange } from './index-loader.js';
import { newId } from '../ids.js';
import { nextTask } from '../timers.js';
import { NO_MARK, WRITE_MARK_KEY } from '../store/write-mark.js';
import type { EmbedderStamp } from '../schema/records.js';
import { decodePage, encodePage, reencodeDocs, type SnapshotPage, type TermSource } from './snapshot-page.js';
import { unheldTerms } from './unheld-terms.js';
import { readColumns } from '../search/doc-columns.js';
import { logBetween, writtenMemories, writtenSince, type WrittenMemory } from './replay-log.js';
import { isPayloadFile, type PageFileSource, type PageFileWriter, type PayloadFile } from '../store/page-file-store.js';
import { PageFileReader } from './page-files.js';
import type { SnapshotPages } from './snapshot-pages.js';

export type { SnapshotPage } from './snapshot-page.js';
export { PAGE_SIZE, SnapshotPages, type DirtyPage } from './snapshot-pages.js';

/**
 * The persisted index snapshot: the in-memory index (documents, texts,
 * vectors and their int8 copy) in pages of a few thousand memories, so
 * opening a large store reads a few dozen IndexedDB values instead of two per
 * memory, and loads each with a few copies (see snapshot-page.ts).
 *
 * It is a cache. IndexedDB's records stay the source of truth; the snapshot
 * is used only for the same embedder, and when the store is still at the
 * write mark it was saved at (see write-mark.ts) or the write log holds every
 * write since (then the memories those wrote are read and replayed onto it:
 * a tab killed before its last save opens from the snapshot too); otherwise
 * the engine rebuilds from the records and saves a fresh one. Saving rewrites only the
 * pages that changed since the last save, in one transaction with the
 * header, and only if no write committed since the state was captured.
 */

/**
 * Bump when the page layout changes: older snapshots are then ignored (and rebuilt).
 * 2: documents column-wise, and the int8 copy of the vectors (snapshot-page.ts).
 * 3: vectors and int8 rows in one Blob per page.
 */
/**
 * 4: the header lists `pages` (format 3 called them blocks, a word the vector store uses for its own rows).
 * 5: a document's flags say whether its text gives a relative time (`dated`); a format-4 page never set it.
 * 6: a turn's indexed text is its words alone (format 5 put its speaker's name before them: search/indexed-text.ts);
 *    the header names its page layout (`layout`), so a save merges its pages only into a snapshot of the same layout.
 * 7: a page keeps its texts' term lists and fingerprints, not the texts (their strings were a large part of
 *    reading the page rows); a page whose term lists this engram cannot read (another
 *    tokenizer version) is not used, and the open reads the records.
 * 8: a document's `touchedAt` counts from the memory's own time or its last recall (search/index-doc.ts
 *    `recencyClockOf`), not from its last write: a format-7 page holds the old clock, so the open reads the records.
 */
const FORMAT = 8;
const HEADER_KEY = 'header';

export interface SnapshotHeader {
  key: typeof HEADER_KEY;
  format: number;
  mark: string;
  embedder: EmbedderStamp;
  /**
   * Which assignment of memories to pages the pages follow (`SnapshotPages.layout`): an engine that
   * built its own (from the records) must not merge its pages with another's, or a memory could be in
   * two pages or in none.
   */
  layout: string;
  /**
   * Each page's current row (rows are copy-on-write: a rewritten page gets a new key), and the payload file the
   * row names when that is not the file of its own key (a page whose documents alone were saved again keeps its
   * file: `reencodeDocs`). A header saved before pages recorded `file` names none: each row's file is its key's.
   */
  pages: { page: number; key: string; file?: string }[];
  count: number;
}

export type SnapshotRow = SnapshotHeader | SnapshotPage;

/**
 * Loads the snapshot into `index` if it is of the embedder and matches the
 * store's current write mark, or the write log leads from its mark to the
 * current one (replay-log.ts). Mark, header, log, pages and the memories
 * written since are read in one read transaction, so they are consistent;
 * the pages' payloads (Blobs, see snapshot-page.ts) are then read all at
 * once and each page is loaded as soon as its bytes arrive, while the next
 * ones are still being read. Returns the mark either way (the engine's
 * index is then at that mark) and, when the snapshot was used, its page
 * layout and the changes since it, which the caller replays onto the index
 * (`replayChanges`, index-loader.ts) once it observes the index again, so the next save
 * writes their pages; when it was not (stale, or a page that does not fit
 * together), the index may hold part of it and the caller rebuilds it from
 * the records.
 */
export async function loadSnapshot(
  db: EngramDatabase,
  embedder: EmbedderStamp,
  index: MemoryIndex,
  source?: PageFileSource,
  stored: Promise<StoredSnapshot> = readSnapshot(db),
): Promise<{ mark: string; pages: { page: number; ids: string[] }[] | null; layout: string; since: IndexChange[] }> {
  const read = await stored;
  const { mark } = read;
  const usable =
    read.rows &&
    read.embedder.id === embedder.id &&
    read.embedder.dimension === embedder.dimension &&
    index.dimension === embedder.dimension;
  const rows = usable ? read.rows : null;
  const { layout, since } = read;
  const failed = { mark, pages: null, layout, since: [] };
  if (!rows || rows.some((row) => !(row?.payload instanceof Blob) && !isPayloadFile(row?.payload))) return failed;
  // Blobs are all asked for at once (IndexedDB reads them meanwhile); files are read one by one, each into the same
  // buffer, the next one opened meanwhile.
  const files = source ?? new PageFileReader(db.name);
  const blobs = (rows as SnapshotPage[]).map((row) => (row.payload instanceof Blob ? row.payload.arrayBuffer().then((bytes) => new Uint8Array(bytes)) : null));
  // Reads left unawaited once a page is refused must not surface as unhandled rejections.
  for (const payload of blobs) payload?.catch(() => undefined);
  // Room for every page's rows first, while the payloads are read: each user's matrix grows once. (Only a
  // hint from the raw columns: decodePage validates each page before it is loaded.)
  const rowsPerUser = new Map<string, number>();
  for (const { docs } of rows as SnapshotPage[]) {
    for (const code of docs.userId ?? []) {
      const userId = docs.strings?.[code];
      if (typeof userId === 'string') rowsPerUser.set(userId, (rowsPerUser.get(userId) ?? 0) + 1);
    }
  }
  reserveRows(index, rowsPerUser);
  const pages: { page: number; ids: string[] }[] = [];
  const fileOf = (i: number) => (isPayloadFile(rows[i]?.payload) ? (rows[i]!.payload as PayloadFile) : undefined);
  try {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const payload = await (blobs[i] ?? files.read(row.payload as PayloadFile, fileOf(i + 1))).catch(() => null);
      const batch = payload && decodePage(row, payload, embedder.dimension);
      if (!batch) return failed;
      loadBatch(index, batch);
      pages.push({ page: row.page, ids: row.docs.ids });
    }
  } finally {
    files.close?.();
  }
  // A memory whose vector no logged write changed has the snapshot's (replay-log.ts); one with neither is for the full read to repair.
  const changes: IndexChange[] = [];
  for (const { id, now } of since) {
    if (!now) {
      changes.push({ id });
      continue;
    }
    // Only its ranking and filter fields changed (an access time, a pin): the page's vector and terms stay. Queuing
    // its text again, as a rewrite, made a replay of a session's access times (a killed tab that had made many
    // recalls) hold a text per access and build every keyword posting before the first answer.
    if (!now.vector && index.peekDoc(id)?.userId === now.doc.userId && index.holdsText(id, now.text)) {
      changes.push({ id, doc: now.doc });
      continue;
    }
    const vector = now.vector ?? index.vector(id)?.slice();
    if (!vector) return failed;
    changes.push({ id, entry: { doc: now.doc, text: now.text, vector } });
  }
  return { mark, pages, layout, since: changes };
}

/** What `readSnapshot` found: the store's mark and, when a snapshot can lead to it, its page rows and the memories written since. */
export interface StoredSnapshot {
  mark: string;
  /** The embedder the snapshot was saved with (the loader checks it is the engine's). */
  embedder: EmbedderStamp;
  rows: (SnapshotPage | undefined)[] | null;
  layout: string;
  since: WrittenMemory[];
}

/**
 * Reads the snapshot's rows in one read transaction (mark, header, log,
 * pages and the memories written since, consistent with each other),
 * without the embedder: the engine starts it while its model loads, so the
 * reading overlaps the model's start, and `loadSnapshot` checks the
 * snapshot is the embedder's once it is known. Rows is null when there is
 * no snapshot of this format, or the write log does not lead from its mark
 * to the store's.
 */
export async function readSnapshot(db: EngramDatabase): Promise<StoredSnapshot> {
  return db.transaction('r', [db.meta, db.snapshot, db.indexLog, ...memoryKinds().map((kind) => db.table(kind.table)), db.vectorBlocks], async () => {
    const mark = ((await db.meta.get(WRITE_MARK_KEY))?.value as string | undefined) ?? NO_MARK;
    const header = (await db.snapshot.get(HEADER_KEY)) as SnapshotHeader | undefined;
    const none = { mark, embedder: { id: '', dimension: 0 }, rows: null, layout: '', since: [] };
    if (!header || header.format !== FORMAT) return none;
    let since: WrittenMemory[] = [];
    if (header.mark !== mark) {
      const written = writtenSince(await db.indexLog.toArray(), header.mark, mark);
      if (!written) return none;
      since = await writtenMemories(db, [...written.ids], [...written.blocks], header.embedder.dimension, written.tables);
    }
    const rows = (await db.snapshot.bulkGet(header.pages.map((b) => b.key))) as (SnapshotPage | undefined)[];
    return { mark, embedder: header.embedder, rows, layout: header.layout, since };
  });
}

/**
 * Saves the pages that changed since the last save, copy-on-write: the new
 * pages go in under fresh keys, one per transaction, then one transaction
 * swaps the header to the new keys and deletes every row the header no
 * longer names. The snapshot is saved at `expectedMark`, the mark of the
 * index's state when the save began: the pages are read from the index one
 * after another, so each holds that state or a later one, and a write that
 * committed meanwhile stays in the write log, which the next open replays
 * from there (replay-log.ts). So the save commits while writes go on (a
 * save of a large store spans many recalls, and recalls write their access times
 * every 2 s at the latest: a save that needed the mark not to move never
 * committed while recalls went on, and the log grew), unless the log does
 * not lead from `expectedMark` to the store's mark (a write not logged).
 * The log rows before `expectedMark` are deleted. A crash mid-save leaves
 * the previous snapshot intact. Returns whether it saved; on `false` the
 * pages stay dirty for the next try.
 */
export async function saveSnapshot(
  db: EngramDatabase,
  index: MemoryIndex,
  tracker: SnapshotPages,
  embedder: EmbedderStamp,
  expectedMark: string,
  files: PageFileWriter | null = null,
  pace: () => Promise<void> = nextTask,
  readTerms: TermSource = unheldTerms(db, index),
): Promise<boolean> {
  // Which pages to write, and the layout, are taken now. Each page's contents are read from the index just
  // before it is written, in steps so queries run in between. That is safe: anything that changes the index
  // also moves the write mark and is logged from `expectedMark` on, so the open replays it over these pages.
  const dirty = tracker.takeDirty();
  // Pages left empty are not written: the header stops naming them and their rows are swept.
  const taken = dirty.filter((t) => t.ids.length > 0);
  const generation = newId();
  const keyOfPage = (page: number) => `page:${page}:${generation}`;
  const live = new Set(tracker.livePages());
  const count = index.size;
  // The stored rows that pages whose documents alone changed are re-encoded from: the stored header's, if it is of this layout.
  const stored = taken.some((t) => t.fieldsOnly) ? ((await db.snapshot.get(HEADER_KEY)) as SnapshotHeader | undefined) : undefined;
  const storedEntries = stored?.format === FORMAT && stored.layout === tracker.layout ? new Map(stored.pages.map((entry) => [entry.page, entry])) : undefined;
  /** Pages re-encoded from a stored row: that row's key, which the header must still name when this save commits. */
  const reencodedFrom = new Map<number, string>();
  /** The payload file each page written here names, when it names one. */
  const fileOf = new Map<number, string>();

  let saved = false;
  let otherLayout = false;
  let kept: Set<string> | undefined;
  try {
    // One page per write transaction, its work in steps paced by `pace` (the engine's waits for calls to pause):
    // encoding a page of 2,048 memories, cloning its row and writing its file as two long tasks made a query arriving
    // meanwhile wait for them, so no step of a save holds the engine longer than cloning one row.
    for (let i = 0; i < taken.length; i++) {
      if (i > 0) await pace();
      const { page, ids, fieldsOnly } = taken[i]!;
      // Only documents changed (what recalls' access times leave): the stored row's terms, norms and payload stay.
      const source = fieldsOnly ? storedEntries?.get(page) : undefined;
      const savedRow = source ? ((await db.snapshot.get(source.key)) as SnapshotPage | undefined) : undefined;
      const reencoded = savedRow ? reencodeDocs(index, ids, savedRow, keyOfPage(page)) : null;
      if (reencoded) {
        const columns = readColumns(reencoded.row.docs);
        if (columns) adoptDocs(index, columns, reencoded.row.fingerprints, reencoded.docs);
        await pace();
        await db.snapshot.put(reencoded.row);
        reencodedFrom.set(page, source!.key);
        if (isPayloadFile(reencoded.row.payload)) fileOf.set(page, reencoded.row.payload.file);
        continue;
      }
      const encoded = await encodePage(index, ids, page, keyOfPage(page), readTerms, pace);
      if (!encoded) return false; // a memory left the index meanwhile: the mark has moved too
      const { row, payload } = encoded;
      // The page's documents written since the open are held as its columns from now on (what reopening would give).
      const columns = readColumns(row.docs);
      if (columns) adoptDocs(index, columns, row.fingerprints, encoded.docs);
      await pace();
      if (!files) {
        await db.snapshot.put({ ...row, payload: new Blob(payload as BlobPart[]) });
        continue;
      }
      // The row before its file (see page-files.ts: a file is listed for deletion only once its row exists).
      await db.snapshot.put({ ...row, payload: { file: row.key, bytes: payload.reduce((n, part) => n + part.byteLength, 0) } });
      await pace();
      await files.write(row.key, payload);
      fileOf.set(page, row.key);
    }
    const listed = files ? await files.list() : [];
    saved = await db.transaction('rw', [db.meta, db.snapshot, db.indexLog], async () => {
      const mark = ((await db.meta.get(WRITE_MARK_KEY))?.value as string | undefined) ?? NO_MARK;
      // Writes committed while the pages were read: the open replays them, if the log leads from the save's mark to the store's.
      const log = mark === expectedMark ? [] : await db.indexLog.toArray();
      const since = mark === expectedMark ? [] : logBetween(log, expectedMark, mark);
      if (!since) return false;
      const previous = (await db.snapshot.get(HEADER_KEY)) as SnapshotHeader | undefined;
      const entryOf = new Map<number, SnapshotHeader['pages'][number]>();
      // The stored pages are this layout's: the pages not rewritten stay. Otherwise every live page must be in this save.
      if (previous?.format === FORMAT && previous.layout === tracker.layout) {
        for (const entry of previous.pages) if (live.has(entry.page)) entryOf.set(entry.page, entry);
      } else if (taken.length < live.size) {
        otherLayout = true;
        return false;
      }
      // A page re-encoded from a stored row shares that row's payload: the header must still name that row
      // (another engine's save may have replaced it, and swept its file), or this save does not commit.
      for (const [page, key] of reencodedFrom) if (entryOf.get(page)?.key !== key) return false;
      for (const { page } of taken) {
        const file = fileOf.get(page);
        const key = keyOfPage(page);
        entryOf.set(page, file === undefined || file === key ? { page, key } : { page, key, file });
      }
      const header: SnapshotHeader = {
        key: HEADER_KEY,
        format: FORMAT,
        mark: expectedMark,
        embedder,
        layout: tracker.layout,
        pages: [...entryOf.values()],
        count,
      };
      const keep = new Set([HEADER_KEY, ...header.pages.map((entry) => entry.key)]);
      const stale = (await db.snapshot.toCollection().primaryKeys()).filter((key) => !keep.has(key));
      await db.snapshot.bulkDelete(stale);
      await db.snapshot.put(header);
      // The writes before the snapshot's mark need no replaying; those since it do.
      if (since.length === 0) await db.indexLog.clear();
      else {
        const replayed = new Set(since);
        await db.indexLog.bulkDelete(log.filter((row) => !replayed.has(row)).map((row) => row.seq!));
      }
      kept = new Set(header.pages.map((entry) => entry.file ?? entry.key));
      return true;
    });
    // The files of pages the header no longer names (pages replaced, saves that did not commit).
    if (saved && kept) await files?.remove(listed.filter((name) => !kept!.has(name)));
  } finally {
    if (!saved) {
      tracker.undo(dirty);
      // Another engine saved its own layout meanwhile: the next try writes every page.
      if (otherLayout) tracker.allDirty();
      // Best effort: rows of a save that did not commit are also swept by the next one that does.
      await db.snapshot.bulkDelete(taken.map((t) => keyOfPage(t.page))).catch(() => undefined);
      await files?.remove(taken.map((t) => keyOfPage(t.page))).catch(() => undefined);
    }
  }
  return saved;
}
