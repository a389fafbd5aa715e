import type { EngineContext } from '../engine-context.js';
import type { IndexObserver } from '../search/memory-index.js';
import { nextTask, unrefTimer } from '../timers.js';
import { saveSnapshot, SnapshotPages } from './index-snapshot.js';
import type { PageFileWriter } from '../store/page-file-store.js';
import { PageFiles } from './page-files.js';

export interface SnapshotWriterOptions {
  /** Quiet time after the last index change before saving (ms). */
  delayMs?: number;
  /**
   * True when no call and no background job is running (only then is the
   * index exactly the committed state), and, with `forMs`, no call ended in
   * the last `forMs` milliseconds either.
   */
  isQuiet: (forMs?: number) => boolean;
  /** Where page payloads go when the store brings its own folder (the durable Node store); otherwise files where this engine can write them with sync access handles, else Blobs. */
  files?: PageFileWriter;
}


/** How long calls must have paused before a save in progress encodes its next page (see `pace`). */
const PAUSE_MS = 50;

/**
 * A save comes at the latest this many save delays after the first change
 * it would save, even while changes keep coming sooner than the delay (an
 * agent recalling every half second writes access times every half second:
 * a plain debounce never saved, and the write log that a killed tab's next
 * open replays grew without end).
 */
const MAX_WAIT_DELAYS = 10;

/**
 * Quiet time before saving once a memory left the index (deleted, forgotten,
 * retired): the snapshot's page still holds its text and vector, which
 * should not stay on disk any longer than the save takes to come.
 */
const REMOVAL_DELAY_MS = 50;

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
  /** After a removal: REMOVAL_DELAY_MS, unless the app chose its own delay (which then holds for removals too). */
  private readonly removalDelayMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<boolean> | undefined;
  private stopped = false;
  /** A memory left the index since the last save: its text and vector are still in a saved page, so the next save comes sooner. */
  private removals = false;
  /** Where pages keep their payloads: files where this engine can write them, else (null) Blobs in IndexedDB. */
  private files: Promise<PageFileWriter | null> | undefined;
  /** When the oldest change not yet saved was made (performance.now()); undefined when every change is saved. */
  private firstUnsaved: number | undefined;

  constructor(
    private readonly ctx: EngineContext,
    private readonly options: SnapshotWriterOptions,
  ) {
    this.delayMs = options.delayMs ?? 2000;
    this.removalDelayMs = options.delayMs ?? REMOVAL_DELAY_MS;
  }

  /** Starts observing the index (after it was loaded). */
  start(): void {
    this.ctx.index.reportChangesTo(this);
    if (this.pages.hasChanges) this.schedule();
  }

  changed(id: string, fieldsOnly?: boolean): void {
    this.pages.changed(id, fieldsOnly);
    this.schedule();
  }

  removed(id: string): void {
    this.pages.removed(id);
    this.removals = true;
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
    this.files ??= this.options.files ? Promise.resolve(this.options.files) : PageFiles.open(db.name);
    const files = await this.files;
    // One save at a time: another flush may have started one while this one waited.
    while (this.saving) await this.saving;
    if (!this.pages.hasChanges) {
      this.firstUnsaved = undefined;
      return true;
    }
    if (db.writeMark.foreignSeen || !db.isOpen() || !this.options.isQuiet()) return false;
    const removals = this.removals;
    this.removals = false;
    this.saving = saveSnapshot(db, this.ctx.index, this.pages, { id: embedder.id, dimension: embedder.dimension }, db.writeMark.committed, files, () =>
      this.pace(),
    ).catch(
      // A cache: a full disk or a closing database costs the next open a rebuild, nothing else.
      () => false,
    );
    try {
      const saved = await this.saving;
      // Not saved: the pages stay dirty (saveSnapshot puts them back), and so does the hurry.
      if (!saved) this.removals ||= removals;
      // Saved: what is still dirty changed during the save, and waits from now.
      else this.firstUnsaved = this.pages.hasChanges ? performance.now() : undefined;
      return saved;
    } finally {
      this.saving = undefined;
    }
  }

  /**
   * Between two pages of a save: waits until calls have paused for
   * PAUSE_MS. Encoding and storing a page of 2,048 memories holds the
   * engine's thread for a while; a save that went on while recalls came back
   * to back (a reopened store saving the pages its replay had dirtied)
   * stalled each of them behind page after page. So a save yields to calls and goes
   * on in their pauses (and at once when stopping: close() flushes after
   * the last call).
   */
  private async pace(): Promise<void> {
    await nextTask();
    while (!this.stopped && !this.options.isQuiet(PAUSE_MS)) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }

  /** Stops timers; a save in progress finishes (the caller may `flush` first). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.saving) await this.saving;
  }

  /**
   * (Re)starts the save's timer: the save delay after this change, but no
   * later than MAX_WAIT_DELAYS delays after the oldest unsaved change; once
   * that is past, it looks again every PAUSE_MS until the engine is quiet.
   * A change that moves the save later leaves the armed timer as it is (it
   * re-arms for the rest when it fires): recall touches ten documents or so,
   * and a clearTimeout and setTimeout for each was a cost of every recall.
   */
  private schedule(): void {
    if (this.stopped) return;
    const now = performance.now();
    this.firstUnsaved ??= now;
    const delay = this.removals ? this.removalDelayMs : this.delayMs;
    const due = now + Math.min(delay, Math.max(PAUSE_MS, this.firstUnsaved + MAX_WAIT_DELAYS * this.delayMs - now));
    this.dueAt = due;
    if (this.timer !== undefined && this.timerAt <= due) return;
    clearTimeout(this.timer);
    this.arm(due, now);
  }

  /** When the armed timer fires (performance.now()), and when the save it looks for is due: never before it fires. */
  private timerAt = 0;
  private dueAt = 0;

  private arm(at: number, now: number): void {
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Changes since the timer was armed moved the save later: wait for the rest.
      const later = performance.now();
      if (this.dueAt > later) return this.arm(this.dueAt, later);
      // A save is running: look again once it is done, when what it leaves dirty (changed meanwhile) waits from
      // then (flushing now would start the next save right after it: back-to-back saves while calls go on).
      if (this.saving) {
        void this.saving.then(() => this.schedule());
        return;
      }
      void this.flush().then((current) => {
        // Not quiet yet: try again later (a foreign write means this engine's snapshot stays unsaved).
        if (!current && !this.ctx.db.writeMark.foreignSeen && this.ctx.db.isOpen()) this.schedule();
      });
    }, at - now);
    unrefTimer(this.timer);
  }
}
