import { AbortError, StorageError, SyncError } from '../errors.js';
import type { HubClient } from './hub-client.js';
import type { LocalReplica } from './local-replica.js';
import { openBatch } from './open-batch.js';
import { initialPullState } from './pull-state.js';
import { sealChange } from './seal.js';
import { spaceTag, type SyncKey } from './sync-key.js';

/** What one round of sync did (`memory.sync.now()`). */
export interface SyncRoundResult {
  /** Rows sent to the hub (including ones it already had). */
  pushed: number;
  /** Batches pulled, and the other devices' changes they carried. */
  batches: number;
  applied: number;
}

/**
 * One round of sync: push everything pending, then pull until the hub has
 * nothing more. Push comes first so that a device has handed over its own
 * writes before it records, by pulling, that it has passed the others'
 * (the hub drops a tombstone once every device has passed it).
 *
 * Each pulled batch is verified and opened whole before `applyRemote` sees
 * it (open-batch.ts): a refused row stops the round with a SyncError and
 * nothing of that batch is applied; batches applied before it stay applied,
 * and the next round resumes after them.
 */
export async function syncRound(input: { replica: LocalReplica; client: HubClient; key: SyncKey; space: string; signal?: AbortSignal; pushBatchRows?: number }): Promise<SyncRoundResult> {
  const { replica, client, key, space, signal } = input;
  const device = replica.device;
  const tags = { keyTag: key.keyTag, spaceTag: await spaceTag(key, space) };
  const result: SyncRoundResult = { pushed: 0, batches: 0, applied: 0 };
  const checkAbort = () => {
    if (signal?.aborted) throw new AbortError('sync');
  };

  let acknowledged = 0;
  for (;;) {
    checkAbort();
    const pending = await replica.pendingChanges(input.pushBatchRows ?? 500);
    if (pending.length === 0) break;
    if (pending[0]!.seq <= acknowledged) {
      throw new StorageError(`The replica handed out sequence ${pending[0]!.seq} again after the hub acknowledged up to ${acknowledged}: its outbox did not record the acknowledgement.`, { seq: pending[0]!.seq, acknowledged });
    }
    const rows = await Promise.all(pending.map(({ seq, change }) => sealChange(key, { space, seq, change })));
    await client.push({ device, ...tags, rows }, { signal, onBatch: (through) => ((acknowledged = through), replica.acknowledge(through)) });
    result.pushed += rows.length;
  }

  let state = (await replica.loadPullState()) ?? initialPullState();
  for (;;) {
    checkAbort();
    const response = await client.pull({ device, after: state.cursor }, { signal });
    const batch = await openBatch(key, { space, device, state, response });
    if (response.more && batch.state.cursor === state.cursor) {
      throw new SyncError(`The hub says more rows follow cursor ${state.cursor} but handed out none: it does not speak the sync protocol.`, { reason: 'malformed' });
    }
    checkAbort();
    await replica.applyRemote(batch);
    result.batches += 1;
    result.applied += batch.changes.length;
    state = batch.state;
    if (!response.more) break;
  }
  return result;
}
