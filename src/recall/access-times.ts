import type { EngineContext } from '../engine-context.js';
import type { Table } from 'dexie';
import { memoryKinds } from '../memories/registry.js';
import type { TableName } from '../store/commit.js';

/**
 * Records that memories were recalled (`lastAccessedAt`, which recency
 * decays from). The index sees the access at once (its `touchedAt`), and
 * so do the records a call returns (`accessedAt`, `shown`): that in-memory
 * copy is the one ranking reads. The records are written in the background
 * only in a pause: once no public call has run for WRITE_AFTER_MS (not only
 * no recall: an observe() right after the recalls is not held up by it),
 * in quiet commits of at most WRITE_CHUNK records over one kind's table
 * each (no `change` event: nothing the app wrote changed), and a call that
 * arrives meanwhile makes the rest wait for the next pause. A recall's
 * reads wait for any write transaction on the same tables, so a write
 * during a stream of recalls holds up each recall that meets it, whether
 * it comes with every access, every few hundred milliseconds or every
 * couple of seconds. Only accesses that have waited WRITE_WITHIN_MS (calls
 * that never pause) are written without a pause, so a killed tab loses at
 * most that much. The calls that read stored records, `idle()` and
 * `close()` first write them all at once (`settle`), so they see every
 * access recorded; `observe()` and adding turns, which return no stored
 * record, and `facts.add`, which gives a fact it merges into its pending
 * access (`shown`), do not wait for it (operations/operation.ts:
 * `tracked`). The
 * write is best effort: a tab killed before it loses those access times,
 * not a memory.
 */
export const WRITE_AFTER_MS = 250;
/** The longest an access waits to be written while calls go on without a pause. */
export const WRITE_WITHIN_MS = 30_000;
/**
 * The most records one access-time transaction rewrites. A batch is written
 * in transactions of this many, one after the other: a recall's read or a
 * write that arrives meanwhile is queued by IndexedDB behind the transaction
 * running then, not behind the whole batch, since the next one is only
 * created once that one has committed (and, in the background, only in a
 * pause of the calls). `close()` writes each kind's in one (`settleForClose`).
 */
export const WRITE_CHUNK = 32;

export class AccessTimes {
  private pending = new Map<string, { type: string; at: number }>();
  /** The batch being written (its records may be read before its transaction commits). */
  private inFlight = new Map<string, { type: string; at: number }>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the first access not yet written was recorded (performance.now()). */
  private firstPending = 0;
  /** Resolves the tracked promise of the scheduled write (whoever starts it: the timer or `settle`). */
  private fire: (() => void) | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** A call waits for the write (`settle`), or accesses have waited WRITE_WITHIN_MS: write every chunk without waiting for a pause. */
  private urgent = false;

  /**
   * `track` keeps the engine's idle() and close() waiting for the background
   * write; `paused(ms)` says whether no public call has run for `ms`.
   */
  constructor(
    private readonly ctx: EngineContext,
    private readonly track: (work: Promise<unknown>) => void,
    private readonly paused: (ms: number) => boolean = () => true,
  ) {}

  record(memories: readonly { id: string; type: string }[]): void {
    if (memories.length === 0) return;
    const at = this.ctx.now();
    for (const m of memories) {
      const doc = this.ctx.index.doc(m.id);
      if (doc) this.ctx.index.updateDoc({ ...doc, touchedAt: Math.max(doc.touchedAt, at) });
      this.pending.set(m.id, { type: m.type, at });
    }
    if (this.timer) {
      // Still recalling: wait for a pause, unless the first pending access has waited long enough.
      if (performance.now() - this.firstPending >= WRITE_WITHIN_MS) return void this.start(true);
      clearTimeout(this.timer);
    } else {
      this.firstPending = performance.now();
      this.track(new Promise<void>((resolve) => (this.fire = resolve)).then(() => this.settle(false)));
    }
    this.wait();
  }

  /** Looks again after WRITE_AFTER_MS: the write starts once calls have paused that long (or the accesses waited too long). */
  private wait(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      const overdue = performance.now() - this.firstPending >= WRITE_WITHIN_MS;
      if (overdue || this.paused(WRITE_AFTER_MS)) this.start(overdue);
      else this.wait();
    }, WRITE_AFTER_MS);
  }

  /** Starts the scheduled write now; `urgent`: without waiting for pauses between its chunks. */
  private start(urgent: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.urgent ||= urgent;
    const fire = this.fire;
    this.fire = null;
    fire?.();
  }

  /** The latest access recorded for `id` that may not be in its record yet. */
  accessedAt(id: string): number | undefined {
    return this.pending.get(id)?.at ?? this.inFlight.get(id)?.at;
  }

  /** `record` as read from the store, with any later access not written yet (a recall's own hits). */
  shown<R extends { id: string; lastAccessedAt: number }>(record: R): R {
    const at = this.accessedAt(record.id);
    if (at !== undefined && at > record.lastAccessedAt) record.lastAccessedAt = at;
    return record;
  }

  /**
   * Writes what is pending now, and resolves once every access recorded so
   * far is written; `urgent` (a caller waits for it): every chunk at once,
   * not only in pauses of the calls.
   */
  settle(urgent = true): Promise<void> {
    // Urgent for what is pending or being written now (a later batch waits for its own pause).
    if (urgent && (this.pending.size > 0 || this.inFlight.size > 0)) {
      this.urgent = true;
      this.wake?.();
    }
    if (this.fire) this.start(urgent);
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      const written: Promise<void> = this.writing.then(async () => {
        this.inFlight = batch;
        await this.write(batch);
        if (this.inFlight === batch) this.inFlight = new Map();
        // The last batch queued is written: the next one waits for its own pause.
        if (this.writing === written) this.urgent = false;
      });
      this.writing = written;
    }
    return this.writing;
  }

  /**
   * `close()`: writes what is pending and what is left of a batch being
   * written, each kind's in one transaction (no call can come any more for
   * chunks to let through, and each transaction is a commit of its own).
   */
  settleForClose(): Promise<void> {
    this.closing = true;
    return this.settle();
  }

  private closing = false;

  /** Ends the wait for a pause between two chunks (a caller now waits for the write). */
  private wake: (() => void) | undefined;

  private async write(batch: Map<string, { type: string; at: number }>): Promise<void> {
    let first = true;
    for (const kind of memoryKinds()) {
      const ids = [...batch].filter(([, access]) => access.type === kind.type).map(([id]) => id);
      for (let start = 0; start < ids.length; ) {
        // A call came since the write began: the rest waits for the next pause, unless a caller waits for it.
        while (!first && !this.urgent && !this.paused(WRITE_AFTER_MS)) await this.pause();
        first = false;
        const end = this.closing ? ids.length : start + WRITE_CHUNK;
        await this.writeChunk(kind.table, ids.slice(start, end), batch);
        start = end;
      }
    }
  }

  /** Resolves after WRITE_AFTER_MS, or sooner when a caller starts waiting for the write. */
  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, WRITE_AFTER_MS);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.wake === done) self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }

  /** One quiet commit over one kind's table alone: its records read at once, and the changed ones put at once. */
  private async writeChunk(tableName: string, ids: string[], batch: Map<string, { type: string; at: number }>): Promise<void> {
    const table = this.ctx.db.table(tableName) as Table<{ lastAccessedAt: number }, string>;
    await this.ctx
      .commit(
        'record recall access times',
        [tableName as TableName],
        async () => {
          const records = await table.bulkGet(ids);
          const later = records.filter((record, i): record is { lastAccessedAt: number } => {
            const at = batch.get(ids[i]!)!.at;
            if (!record || record.lastAccessedAt >= at) return false;
            record.lastAccessedAt = at;
            return true;
          });
          if (later.length > 0) await table.bulkPut(later);
        },
        { quiet: true },
      )
      .catch(() => undefined); // Best effort: a closed database or a deleted record is fine.
  }
}
