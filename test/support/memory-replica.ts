import type { Change, SyncedVector } from '../../src/replication/change.js';
import { createHybridClock, type HybridClock } from '../../src/replication/hlc.js';
import type { LocalReplica } from '../../src/replication/local-replica.js';
import { incomingWins } from '../../src/replication/merge-rules.js';
import type { OpenedBatch } from '../../src/replication/open-batch.js';
import type { PullState } from '../../src/replication/pull-state.js';

/**
 * A replica kept in memory that follows the LocalReplica contract
 * (src/replication/local-replica.ts) with whole-record last-writer-wins:
 * the stand-in for an engine in tests of the hub, the transport and the
 * sync round. Deletes are kept as tombstones.
 */
export class MemoryReplica implements LocalReplica {
  readonly clock: HybridClock;
  /** The latest version of each record, tombstones included, by `kind/id`. */
  readonly records = new Map<string, Change>();
  /** Records changed locally and not yet acknowledged: `kind/id` → the sequence of their latest local version. */
  private readonly outbox = new Map<string, number>();
  private seq = 0;
  private acknowledged = 0;
  private pullState: PullState | undefined;
  /** Every batch applied, for tests that check nothing was. */
  readonly appliedBatches: OpenedBatch[] = [];

  constructor(
    readonly device: string,
    now: () => number = Date.now,
  ) {
    this.clock = createHybridClock({ device, now });
  }

  put(kind: string, id: string, record: Record<string, unknown>, vector?: SyncedVector): Change {
    return this.commit({ kind, id, op: 'put', hlc: this.clock.tick(), device: this.device, record, ...(vector ? { vector } : {}) } as Change);
  }

  delete(kind: string, id: string): Change {
    return this.commit({ kind, id, op: 'delete', hlc: this.clock.tick(), device: this.device });
  }

  private commit(change: Change): Change {
    const key = `${change.kind}/${change.id}`;
    this.records.set(key, change);
    this.outbox.set(key, ++this.seq);
    return change;
  }

  async pendingChanges(limit: number) {
    return [...this.outbox]
      .filter(([, seq]) => seq > this.acknowledged)
      .sort((a, b) => a[1] - b[1])
      .slice(0, limit)
      .map(([key, seq]) => ({ seq, change: this.records.get(key)! }));
  }

  async acknowledge(seq: number) {
    this.acknowledged = Math.max(this.acknowledged, seq);
    for (const [key, s] of this.outbox) if (s <= seq) this.outbox.delete(key);
  }

  async loadPullState() {
    return this.pullState && structuredClone(this.pullState);
  }

  async applyRemote(batch: OpenedBatch) {
    const latest = batch.changes.reduce<string | undefined>((max, c) => (max === undefined || c.hlc > max ? c.hlc : max), undefined);
    if (latest) this.clock.observe(latest);
    for (const change of batch.changes) {
      const key = `${change.kind}/${change.id}`;
      if (incomingWins(this.records.get(key), change)) {
        this.records.set(key, change);
        this.outbox.delete(key);
      }
    }
    this.pullState = structuredClone(batch.state);
    this.appliedBatches.push(batch);
  }

  /** The live records, as comparable plain data: `kind/id` → record (and vector values). */
  live(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, change] of [...this.records].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (change.op === 'put') out[key] = { record: change.record, hlc: change.hlc, ...(change.vector ? { vector: [...change.vector.values] } : {}) };
    }
    return out;
  }

  get pending(): number {
    return this.outbox.size;
  }
}
