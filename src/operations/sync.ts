/**
 * The engine side of sync (replication/engine-replica.ts), as operations the
 * facade's sync loop calls (facade/memory-sync.ts): in-process or
 * across the worker boundary alike. They are not methods of `Memory`: the
 * app drives sync through `memory.sync`. What each does is in
 * engine/handlers/sync.ts, so the page never loads the engine's side of sync.
 */
import * as z from 'zod/mini';
import { changeSchema } from '../replication/change.js';
import { sequenceSchema } from '../replication/protocol.js';
import { pullStateSchema } from '../replication/pull-state.js';
import { defineOperation, param, type Param, type Runs } from './operation.js';

export const openedBatchSchema = z.strictObject({ changes: z.array(changeSchema), state: pullStateSchema });

/** A step of the sync loop: tracked (close() waits for it) unless said otherwise, and never behind recall's access-time write. */
function syncStep<const M extends string, const P extends readonly Param[]>(method: M, name: string, input: P, runs: Runs = 'tracked') {
  return defineOperation({ method, name, input, runs });
}

export const enableSync = syncStep('sync.enable', 'start sync', []);
export const pendingSyncChanges = syncStep('sync.pending', 'read the changes to push', [param(z.number().check(z.int(), z.gte(1), z.lte(1000)), 'limit')]);
export const countSyncChanges = syncStep('sync.count', 'count the changes to push', [], 'untracked');
export const acknowledgeSyncChanges = syncStep('sync.acknowledge', 'acknowledge pushed changes', [param(sequenceSchema, 'seq')]);
export const loadSyncPullState = syncStep('sync.pullState', 'read the sync cursor', []);
export const applySyncBatch = syncStep('sync.apply', 'apply pulled changes', [param(openedBatchSchema, 'batch')]);

export const SYNC_OPERATIONS = [enableSync, pendingSyncChanges, countSyncChanges, acknowledgeSyncChanges, loadSyncPullState, applySyncBatch] as const;
