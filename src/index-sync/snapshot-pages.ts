import type { IndexObserver } from '../search/memory-index.js';
import { newId } from '../ids.js';

/** Memories per page: small enough that rewriting a page when one memory in it changes stays cheap, large enough that a store has few pages. */
export const PAGE_SIZE = 2048;

/** Changes kept waiting for the page maps before they are built (see `SnapshotPages.restore`): the queue stays a page's worth. */
const MAX_QUEUED = PAGE_SIZE;

/** A page to save: its members, and whether only their documents changed since its stored row. */
export interface DirtyPage {
  page: number;
  ids: string[];
  fieldsOnly: boolean;
}

/**
 * Which page each indexed memory belongs to, and which pages changed since
 * the last save. New memories fill the last page; a removal leaves a hole
 * that stays until the page is rewritten.
 */
export class SnapshotPages implements IndexObserver {
  private readonly pageOf = new Map<string, number>();
  private members: Set<string>[] = [];
  private readonly dirty = new Set<number>();
  /**
   * Dirty pages whose vectors, texts or members changed since their stored row was written (or that have none):
   * the others changed in their documents alone, and a save re-encodes just those (`reencodeDocs`).
   */
  private readonly rewritten = new Set<number>();
  /** This assignment of memories to pages: restored with the pages, new when the index is rebuilt. */
  layout = newId();
  /** Pages `restore` took and `pageOf` and `members` do not hold yet. */
  private restored: { page: number; ids: string[] }[] | undefined;
  /** Changes reported while `restored` waits, applied in order once it is built. */
  private queued: { id: string; fieldsOnly: boolean; removed: boolean }[] = [];

  /**
   * Starts over from pages read back from IndexedDB (nothing dirty). The
   * maps from memories to pages are built when first needed (the first
   * save, which waits for a pause), not here, before the open's first
   * answer: they are a map entry and a set entry per memory. Changes
   * reported meanwhile wait in `queued`, in order; past MAX_QUEUED of them
   * (recalls that never pause each report their hits) the maps are built.
   */
  restore(pages: { page: number; ids: string[] }[], layout: string): void {
    this.layout = layout;
    this.pageOf.clear();
    this.members = [];
    this.dirty.clear();
    this.rewritten.clear();
    this.restored = pages;
    this.queued = [];
  }

  /** The index was emptied: every page is rewritten (the engine saves with `replace` after a rebuild). */
  cleared(): void {
    this.build();
    this.layout = newId();
    this.pageOf.clear();
    for (let n = 0; n < this.members.length; n++) if (this.members[n]) this.mark(n, false);
    this.members = [];
  }

  changed(id: string, fieldsOnly = false): void {
    if (this.restored) {
      this.queue({ id, fieldsOnly, removed: false });
      return;
    }
    const known = this.pageOf.get(id);
    if (known !== undefined) {
      this.mark(known, fieldsOnly);
      return;
    }
    let tail = this.members.length - 1;
    if (tail < 0 || (this.members[tail]?.size ?? 0) >= PAGE_SIZE) {
      tail = this.members.length;
      this.members[tail] = new Set();
    }
    this.members[tail]!.add(id);
    this.pageOf.set(id, tail);
    this.mark(tail, false);
  }

  removed(id: string): void {
    if (this.restored) {
      this.queue({ id, fieldsOnly: false, removed: true });
      return;
    }
    const page = this.pageOf.get(id);
    if (page === undefined) return;
    this.pageOf.delete(id);
    this.members[page]!.delete(id);
    this.mark(page, false);
  }

  get hasChanges(): boolean {
    // A change always dirties a page; a removal only one that holds the memory.
    if (this.dirty.size > 0 || this.queued.some((change) => !change.removed)) return true;
    this.build();
    return this.dirty.size > 0;
  }

  /**
   * Takes the dirty set (the caller puts it back with `undo` if the save does not commit). `fieldsOnly`: only the
   * documents of the page's members changed since its stored row, which the save may then re-encode alone.
   */
  takeDirty(): DirtyPage[] {
    this.build();
    const out = [...this.dirty].map((page) => ({ page, ids: [...(this.members[page] ?? [])], fieldsOnly: !this.rewritten.has(page) }));
    this.dirty.clear();
    this.rewritten.clear();
    return out;
  }

  undo(pages: readonly Pick<DirtyPage, 'page' | 'fieldsOnly'>[]): void {
    this.build();
    for (const { page, fieldsOnly } of pages) this.mark(page, fieldsOnly);
  }

  /** Marks every live page dirty: the next save writes them all (the stored snapshot is of another layout). */
  allDirty(): void {
    for (const page of this.livePages()) this.mark(page, false);
  }

  private mark(page: number, fieldsOnly: boolean): void {
    this.dirty.add(page);
    if (!fieldsOnly) this.rewritten.add(page);
  }

  /** Pages that hold at least one memory. */
  livePages(): number[] {
    this.build();
    const out: number[] = [];
    this.members.forEach((set, n) => {
      if (set && set.size > 0) out.push(n);
    });
    return out;
  }

  private queue(change: { id: string; fieldsOnly: boolean; removed: boolean }): void {
    this.queued.push(change);
    if (this.queued.length > MAX_QUEUED) this.build();
  }

  /** Builds `pageOf` and `members` from the pages `restore` took, then applies the changes queued meanwhile. */
  private build(): void {
    const restored = this.restored;
    if (!restored) return;
    this.restored = undefined;
    for (const { page, ids } of restored) {
      this.members[page] = new Set(ids);
      for (const id of ids) this.pageOf.set(id, page);
    }
    const queued = this.queued;
    this.queued = [];
    for (const { id, fieldsOnly, removed } of queued) {
      if (removed) this.removed(id);
      else this.changed(id, fieldsOnly);
    }
  }
}
