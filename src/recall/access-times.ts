import type { EngineContext } from '../engine-context.js';
import type { Table } from 'dexie';
import { memoryKinds } from '../memories/registry.js';
import type { TableName } from '../store/commit.js';

/**
 * Records that memories were recalled (`lastAccessedAt`, which recency
 * decays from). The index sees the access at once; the records are written
 * in the background once recalls pause for WRITE_AFTER_MS (and at the latest
 * WRITE_WITHIN_MS after the first access not yet written), in quiet commits
 * of at most WRITE_CHUNK records over one kind's table each (no `change`
 * event: nothing the app wrote changed). Back-to-back
 * recalls are gathered into that one write rather than each queueing behind
 * the write of the one before: a recall's reads wait for any write
 * transaction on the same tables, so writing each access at once would put
 * a write in front of nearly every recall, and even a periodic write holds
 * up each recall that meets it. A recall's own records
 * show the accesses not yet written (`accessedAt`, `shown`). The calls that
 * read stored records, `idle()` and `close()` first write them (`settle`),
 * so they see every access recorded; `observe()` and adding turns, which
 * return no stored record, do not wait for it (operations/operation.ts:
 * `tracked`): a write of theirs that meets it waits for one chunk of it.
 * The write is best effort: a tab killed before it loses those access
 * times, not a memory.
 */
export const WRITE_AFTER_MS = 250;
/** The longest an access waits to be written while recalls go on without a pause. */
export const WRITE_WITHIN_MS = 2000;
/**
 * The most records one access-time transaction rewrites. A batch is written
 * in transactions of this many, one after the other: a recall's read or a
 * write that arrives meanwhile is queued by IndexedDB behind the transaction
 * running then, not behind the whole batch, since the next one is only
 * created once that one has committed.
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

  /** `track` keeps the engine's idle() and close() waiting for the background write. */
  constructor(
    private readonly ctx: EngineContext,
    private readonly track: (work: Promise<unknown>) => void,
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
      if (performance.now() - this.firstPending > WRITE_WITHIN_MS - WRITE_AFTER_MS) return;
      clearTimeout(this.timer);
    } else {
      this.firstPending = performance.now();
      this.track(new Promise<void>((resolve) => (this.fire = resolve)).then(() => this.settle()));
    }
    this.timer = setTimeout(() => this.fire?.(), WRITE_AFTER_MS);
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

  /** Writes what is pending now, and resolves once every access recorded so far is written. */
  settle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      const fire = this.fire;
      this.fire = null;
      fire?.();
    }
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      this.writing = this.writing.then(async () => {
        this.inFlight = batch;
        await this.write(batch);
        if (this.inFlight === batch) this.inFlight = new Map();
      });
    }
    return this.writing;
  }

  private async write(batch: Map<string, { type: string; at: number }>): Promise<void> {
    for (const kind of memoryKinds()) {
      const ids = [...batch].filter(([, access]) => access.type === kind.type).map(([id]) => id);
      for (let start = 0; start < ids.length; start += WRITE_CHUNK) await this.writeChunk(kind.table, ids.slice(start, start + WRITE_CHUNK), batch);
    }
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
