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
import { defineOperation, param } from './operation.js';

export const openedBatchSchema = z.strictObject({ changes: z.array(changeSchema), state: pullStateSchema });

export const enableSync = defineOperation({
  method: 'sync.enable',
  name: 'start sync',
  input: [],
  runs: 'tracked'
});

export const pendingSyncChanges = defineOperation({
  method: 'sync.pending',
  name: 'read the changes to push',
  input: [param(z.number().check(z.int(), z.gte(1), z.lte(1000)), 'limit')],
  runs: 'tracked'
});

export const countSyncChanges = defineOperation({
  method: 'sync.count',
  name: 'count the changes to push',
  input: [],
  runs: 'untracked'
});

export const acknowledgeSyncChanges = defineOperation({
  method: 'sync.acknowledge',
  name: 'acknowledge pushed changes',
  input: [param(sequenceSchema, 'seq')],
  runs: 'tracked'
});

export const loadSyncPullState = defineOperation({
  method: 'sync.pullState',
  name: 'read the sync cursor',
  input: [],
  runs: 'tracked'
});

export const applySyncBatch = defineOperation({
  method: 'sync.apply',
  name: 'apply pulled changes',
  input: [param(openedBatchSchema, 'batch')],
  runs: 'tracked'
});

export const SYNC_OPERATIONS = [enableSync, pendingSyncChanges, countSyncChanges, acknowledgeSyncChanges, loadSyncPullState, applySyncBatch] as const;
