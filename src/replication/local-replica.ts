import type { Change } from './change.js';
import type { DeviceId } from './device-id.js';
import type { OpenedBatch } from './open-batch.js';
import type { PullState } from './pull-state.js';

/**
 * What sync needs of a local memory: the engine side of replication, which
 * the engine implements over its commit path (sync-round.ts drives it). Its
 * contract is what makes the conflict rules hold:
 *
 * - Every committed local write of a synced kind gets the next sequence
 *   number of this device and a clock from the device's hybrid clock, in
 *   the same transaction as the write (the outbox is the commit path's
 *   stream, never a second write path).
 * - `pendingChanges` hands out, in sequence order, each changed record's
 *   latest local version once: a record changed twice before a push is
 *   sent once, at its later sequence, and a record whose latest version was
 *   applied from a pull is not sent (sending an older version after a newer
 *   remote one could bring back a record whose tombstone the hub has
 *   dropped).
 * - `applyRemote` applies a verified batch through the same commit path as
 *   local writes, marked remote (not put in the outbox, so not pushed
 *   back), deciding each record by the kind's merge rule (merge-rules.ts,
 *   field-merge.ts), keeping tombstones for deletes, advancing the clock
 *   past the batch's latest clock, re-establishing the episode invariants
 *   (reconcile.ts; its deletes are local writes, so they sync), and storing
 *   `batch.state` in the same transaction. A batch is applied whole or not
 *   at all; applying one twice changes nothing (the same clocks lose to
 *   themselves).
 * - After a SyncError 'expired', the replica rejoins: a new device id, an
 *   empty outbox and pull state, and its records rebuilt from the hub.
 */
export interface LocalReplica {
  /** This store's device id, persisted with the store. */
  readonly device: DeviceId;
  /** Up to `limit` unacknowledged local changes, in sequence order (see above). */
  pendingChanges(limit: number): Promise<{ seq: number; change: Change }[]>;
  /** The hub holds every change of this device up to `seq`: they are not handed out again. */
  acknowledge(seq: number): Promise<void>;
  /** Where pulls resume; undefined before the first pull. */
  loadPullState(): Promise<PullState | undefined>;
  /** Applies other devices' changes and stores `batch.state`, in one commit (see above). */
  applyRemote(batch: OpenedBatch): Promise<void>;
}
