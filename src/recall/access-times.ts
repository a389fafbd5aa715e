import type { EngineContext } from '../engine-context.js';
import type { MemoryType } from '../schema/common.js';

/**
 * Records that memories were recalled (`lastAccessedAt`, which recency
 * decays from). The index sees the access at once; the records are written
 * in the background, WRITE_AFTER_MS after the first access not yet written,
 * in one quiet commit (no `change` event: nothing the app wrote changed).
 * Back-to-back recalls are gathered into that one write rather than each
 * queueing behind the write of the one before: a recall's reads wait for any
 * write transaction on the same tables, which measured 20 ms a recall in
 * Chromium when each access was written at once. A recall's own records
 * show the accesses not yet written (`accessedAt`). Any other engine call,
 * `idle()` and `close()` first write them (`settle`), so they see every
 * access recorded. The write is best effort: a tab killed within
 * WRITE_AFTER_MS loses those access times, not a memory.
 */
export const WRITE_AFTER_MS = 250;

export class AccessTimes {
  private pending = new Map<string, { type: MemoryType; at: number }>();
  /** The batch being written (its records may be read before its transaction commits). */
  private inFlight = new Map<string, { type: MemoryType; at: number }>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Resolves the tracked promise of the scheduled write (whoever starts it: the timer or `settle`). */
  private fire: (() => void) | null = null;
  private writing: Promise<void> = Promise.resolve();

  /** `track` keeps the engine's idle() and close() waiting for the background write. */
  constructor(
    private readonly ctx: EngineContext,
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  record(memories: readonly { id: string; type: MemoryType }[]): void {
    if (memories.length === 0) return;
    const at = this.ctx.now();
    for (const m of memories) {
      const doc = this.ctx.index.doc(m.id);
      if (doc) this.ctx.index.updateDoc({ ...doc, touchedAt: Math.max(doc.touchedAt, at) });
      this.pending.set(m.id, { type: m.type, at });
    }
    if (this.timer) return;
    this.track(new Promise<void>((resolve) => (this.fire = resolve)).then(() => this.settle()));
    this.timer = setTimeout(() => this.fire?.(), WRITE_AFTER_MS);
  }

  /** The latest access recorded for `id` that may not be in its record yet. */
  accessedAt(id: string): number | undefined {
    return this.pending.get(id)?.at ?? this.inFlight.get(id)?.at;
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

  private async write(batch: Map<string, { type: MemoryType; at: number }>): Promise<void> {
    const { db } = this.ctx;
    await this.ctx
      .commit(
        'record recall access times',
        ['episodes', 'facts', 'turns'],
        async () => {
          const later = (at: number) => (record: { lastAccessedAt: number }) => {
            record.lastAccessedAt = Math.max(record.lastAccessedAt, at);
          };
          for (const [id, { type, at }] of batch) {
            const table = type === 'episode' ? db.episodes : type === 'fact' ? db.facts : db.turns;
            await (table as typeof db.facts).where(':id').equals(id).modify(later(at));
          }
        },
        { quiet: true },
      )
      .catch(() => undefined); // Best effort: a closed database or a deleted record is fine.
  }
}
