import type { EngineContext } from '../../engine-context.js';
import type { IndexObserver } from '../memory-index.js';
import { unrefTimer } from '../../timers.js';
import { saveSnapshot, SnapshotPages } from './index-snapshot.js';
import { PageFiles } from './page-files.js';

export interface SnapshotWriterOptions {
  /** Quiet time after the last index change before saving (ms). */
  delayMs?: number;
  /** True when no call and no background job is running: only then is the index exactly the committed state. */
  isQuiet: () => boolean;
}


/**
 * Keeps the persisted index snapshot (index-snapshot.ts) close to the index:
 * every change marks its page dirty, and a debounced save writes the dirty
 * pages once the engine is quiet. Saving is skipped, never wrong: if
 * another engine wrote since this one loaded its index, or a write commits
 * while saving, the snapshot is left as it was and the next open rebuilds.
 */
export class SnapshotWriter implements IndexObserver {
  readonly pages = new SnapshotPages();
  private readonly delayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<boolean> | undefined;
  private stopped = false;
  /** Where pages keep their payloads: files where this engine can write them, else (null) Blobs in IndexedDB. */
  private files: Promise<PageFiles | null> | undefined;

  constructor(
    private readonly ctx: EngineContext,
    private readonly options: SnapshotWriterOptions,
  ) {
    this.delayMs = options.delayMs ?? 2000;
  }

  /** Starts observing the index (after it was loaded). */
  start(): void {
    this.ctx.index.reportChangesTo(this);
    if (this.pages.hasChanges) this.schedule();
  }

  changed(id: string): void {
    this.pages.changed(id);
    this.schedule();
  }

  removed(id: string): void {
    this.pages.removed(id);
    this.schedule();
  }

  cleared(): void {
    this.pages.cleared();
    this.schedule();
  }

  /** Saves now if there is something to save and the engine is quiet; resolves whether the snapshot is current. */
  async flush(): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { db, embedder } = this.ctx;
    this.files ??= PageFiles.open(db.name);
    const files = await this.files;
    // One save at a time: another flush may have started one while this one waited.
    while (this.saving) await this.saving;
    if (!this.pages.hasChanges) return true;
    if (db.writeMark.foreignSeen || !db.isOpen() || !this.options.isQuiet()) return false;
    this.saving = saveSnapshot(db, this.ctx.index, this.pages, { id: embedder.id, dimension: embedder.dimension }, db.writeMark.committed, files).catch(
      // A cache: a full disk or a closing database costs the next open a rebuild, nothing else.
      () => false,
    );
    try {
      return await this.saving;
    } finally {
      this.saving = undefined;
    }
  }

  /** Stops timers; a save in progress finishes (the caller may `flush` first). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.saving) await this.saving;
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().then((current) => {
        // Not quiet yet: try again later (a foreign write means this engine's snapshot stays unsaved).
        if (!current && !this.ctx.db.writeMark.foreignSeen && this.ctx.db.isOpen()) this.schedule();
      });
    }, this.delayMs);
    unrefTimer(this.timer);
  }
}
