import type { EngramDatabase } from './database.js';
import type { IndexDoc } from '../search/index-doc.js';
import type { IndexEntry, IndexObserver, MemoryIndex } from '../search/memory-index.js';
import { newId } from '../ids.js';
import { NO_MARK, WRITE_MARK_KEY } from './write-mark.js';
import type { EmbedderStamp } from './records.js';

/**
 * The persisted index snapshot: the in-memory index (documents, texts and
 * vectors) in blocks of a few thousand memories, so opening a large store
 * reads a few dozen IndexedDB values instead of two per memory.
 *
 * It is a cache. IndexedDB's records stay the source of truth; the snapshot
 * is used only when the store is still at the write mark it was saved at
 * (see write-mark.ts) and for the same embedder, otherwise the engine
 * rebuilds from the records and saves a fresh one. Saving rewrites only the
 * blocks that changed since the last save, in one transaction with the
 * header, and only if no write committed since the state was captured.
 */

/** Bump when the block layout changes: older snapshots are then ignored (and rebuilt). */
const FORMAT = 1;
/** Memories per block: 2,048 × 384-d is 3 MB of vectors, small enough to rewrite when one memory in it changes. */
export const BLOCK_SIZE = 2048;
const HEADER_KEY = 'header';

export interface SnapshotHeader {
  key: typeof HEADER_KEY;
  format: number;
  mark: string;
  embedder: EmbedderStamp;
  /** Each block's current row (rows are copy-on-write: a rewritten block gets a new key). */
  blocks: { block: number; key: string }[];
  count: number;
}

export interface SnapshotBlock {
  key: string;
  block: number;
  docs: IndexDoc[];
  texts: string[];
  /** The blocks' vectors end to end, `docs.length × dimension` floats. */
  vectors: Float32Array;
}

export type SnapshotRow = SnapshotHeader | SnapshotBlock;

/**
 * Which block each indexed memory belongs to, and which blocks changed since
 * the last save. New memories fill the last block; a removal leaves a hole
 * that stays until the block is rewritten.
 */
export class SnapshotBlocks implements IndexObserver {
  private readonly blockOf = new Map<string, number>();
  private members: Set<string>[] = [];
  private readonly dirty = new Set<number>();

  /** Starts over from blocks read back from IndexedDB (nothing dirty). */
  restore(blocks: { block: number; ids: string[] }[]): void {
    this.blockOf.clear();
    this.members = [];
    this.dirty.clear();
    for (const { block, ids } of blocks) {
      const set = new Set(ids);
      this.members[block] = set;
      for (const id of ids) this.blockOf.set(id, block);
    }
  }

  /** The index was emptied: every block is rewritten (the engine saves with `replace` after a rebuild). */
  cleared(): void {
    this.blockOf.clear();
    for (let n = 0; n < this.members.length; n++) if (this.members[n]) this.dirty.add(n);
    this.members = [];
  }

  changed(id: string): void {
    const known = this.blockOf.get(id);
    if (known !== undefined) {
      this.dirty.add(known);
      return;
    }
    let tail = this.members.length - 1;
    if (tail < 0 || (this.members[tail]?.size ?? 0) >= BLOCK_SIZE) {
      tail = this.members.length;
      this.members[tail] = new Set();
    }
    this.members[tail]!.add(id);
    this.blockOf.set(id, tail);
    this.dirty.add(tail);
  }

  removed(id: string): void {
    const block = this.blockOf.get(id);
    if (block === undefined) return;
    this.blockOf.delete(id);
    this.members[block]!.delete(id);
    this.dirty.add(block);
  }

  get hasChanges(): boolean {
    return this.dirty.size > 0;
  }

  /** Takes the dirty set (the caller puts it back with `undo` if the save does not commit). */
  takeDirty(): { block: number; ids: string[] }[] {
    const out = [...this.dirty].map((block) => ({ block, ids: [...(this.members[block] ?? [])] }));
    this.dirty.clear();
    return out;
  }


  undo(blocks: number[]): void {
    for (const b of blocks) this.dirty.add(b);
  }

  /** Blocks that hold at least one memory. */
  liveBlocks(): number[] {
    const out: number[] = [];
    this.members.forEach((set, n) => {
      if (set && set.size > 0) out.push(n);
    });
    return out;
  }
}

/**
 * Reads the snapshot if it matches the store's current write mark and the
 * embedder, in one read transaction (so mark and blocks are consistent).
 * Returns the mark either way: the engine's index is then at that mark.
 */
export async function readSnapshot(
  db: EngramDatabase,
  embedder: EmbedderStamp,
): Promise<{ mark: string; blocks: SnapshotBlock[] | null }> {
  return db.transaction('r', [db.meta, db.snapshot], async () => {
    const mark = ((await db.meta.get(WRITE_MARK_KEY))?.value as string | undefined) ?? NO_MARK;
    const header = (await db.snapshot.get(HEADER_KEY)) as SnapshotHeader | undefined;
    const usable =
      header &&
      header.format === FORMAT &&
      header.mark === mark &&
      header.embedder.id === embedder.id &&
      header.embedder.dimension === embedder.dimension;
    if (!usable) return { mark, blocks: null };
    const rows = (await db.snapshot.bulkGet(header.blocks.map((b) => b.key))) as (SnapshotBlock | undefined)[];
    if (rows.some((row) => !row || row.vectors.length !== row.docs.length * embedder.dimension)) return { mark, blocks: null };
    return { mark, blocks: rows as SnapshotBlock[] };
  });
}

/** The index entries of snapshot blocks (vectors are views into the blocks' arrays, copied by the index). */
export function entriesOf(blocks: SnapshotBlock[], dimension: number): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const block of blocks) {
    block.docs.forEach((doc, i) => {
      entries.push({ doc, text: block.texts[i]!, vector: block.vectors.subarray(i * dimension, (i + 1) * dimension) });
    });
  }
  return entries;
}

/** One block's row, read from the index now; null if one of its memories is no longer indexed. */
function blockRow(index: MemoryIndex, ids: string[], dimension: number, block: number, key: string): SnapshotBlock | null {
  const vectors = new Float32Array(ids.length * dimension);
  const docs: IndexDoc[] = [];
  const texts: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const vector = index.vector(id);
    const doc = index.doc(id);
    const text = index.text(id);
    if (!vector || !doc || text === undefined) return null;
    vectors.set(vector, i * dimension);
    docs.push(doc);
    texts.push(text);
  }
  return { key, block, docs, texts, vectors };
}

/** Blocks per write transaction while saving: small transactions let queries run between them. */
const BLOCKS_PER_WRITE = 4;

/**
 * Saves the blocks that changed since the last save, copy-on-write: the new
 * blocks go in under fresh keys in small transactions, then one transaction
 * checks that the store is still at `expectedMark` (the mark of the state
 * captured here), swaps the header to the new keys and deletes every row the
 * header no longer names. A crash mid-save leaves the previous snapshot
 * intact. Returns whether it saved; on `false` (a write committed meanwhile)
 * the blocks stay dirty for the next try.
 */
export async function saveSnapshot(
  db: EngramDatabase,
  index: MemoryIndex,
  tracker: SnapshotBlocks,
  embedder: EmbedderStamp,
  expectedMark: string,
): Promise<boolean> {
  // Which blocks to write, and the layout, are taken now. Each block's contents are read from the index just
  // before it is written, a few blocks per task so queries run in between. That is safe: anything that changes
  // the index also moves the write mark, so a save that straddles a change fails the final mark check.
  const dirty = tracker.takeDirty();
  // Blocks left empty are not written: the header stops naming them and their rows are swept.
  const taken = dirty.filter((t) => t.ids.length > 0);
  const generation = newId();
  const keyOfBlock = (block: number) => `block:${block}:${generation}`;
  const live = new Set(tracker.liveBlocks());
  const count = index.size;

  let saved = false;
  try {
    for (let i = 0; i < taken.length; i += BLOCKS_PER_WRITE) {
      const rows = taken.slice(i, i + BLOCKS_PER_WRITE).map(({ block, ids }) => blockRow(index, ids, embedder.dimension, block, keyOfBlock(block)));
      if (rows.includes(null)) return false; // a memory left the index meanwhile: the mark has moved too
      await db.snapshot.bulkPut(rows as SnapshotBlock[]);
    }
    saved = await db.transaction('rw', [db.meta, db.snapshot], async () => {
      const mark = ((await db.meta.get(WRITE_MARK_KEY))?.value as string | undefined) ?? NO_MARK;
      if (mark !== expectedMark) return false;
      const previous = (await db.snapshot.get(HEADER_KEY)) as SnapshotHeader | undefined;
      const keyOf = new Map<number, string>();
      if (previous?.format === FORMAT) for (const b of previous.blocks) if (live.has(b.block)) keyOf.set(b.block, b.key);
      for (const { block } of taken) keyOf.set(block, keyOfBlock(block));
      const header: SnapshotHeader = {
        key: HEADER_KEY,
        format: FORMAT,
        mark,
        embedder,
        blocks: [...keyOf].map(([block, key]) => ({ block, key })),
        count,
      };
      const keep = new Set([HEADER_KEY, ...keyOf.values()]);
      const stale = (await db.snapshot.toCollection().primaryKeys()).filter((key) => !keep.has(key));
      await db.snapshot.bulkDelete(stale);
      await db.snapshot.put(header);
      return true;
    });
  } finally {
    if (!saved) {
      tracker.undo(dirty.map((t) => t.block));
      // Best effort: rows of a save that did not commit are also swept by the next one that does.
      await db.snapshot.bulkDelete(taken.map((t) => keyOfBlock(t.block))).catch(() => undefined);
    }
  }
  return saved;
}
