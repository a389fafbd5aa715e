import * as z from 'zod/mini';
import { idSchema } from '../schema/common.js';
import { fieldClocksSchema, kindSchema } from './change.js';
import { deviceIdSchema } from './device-id.js';
import { hlcSchema } from './hlc.js';
import { sequenceSchema } from './protocol.js';

/**
 * What a memory stores to take part in sync (store/database.ts, version 7),
 * all local to the store: the hub never sees these rows.
 */

/** The `meta` key of the replica's state; absent until sync is first started on this store, and with it nothing is captured. */
export const REPLICA_META_KEY = 'syncReplica';
/** The `meta` key of the pull state (pull-state.ts). */
export const PULL_META_KEY = 'syncPull';

/**
 * The replica's identity and counters, in `meta`: its device id, the last
 * sequence number it gave a change, the highest one the hub acknowledged,
 * and its hybrid clock's last value (so the clock never goes back across
 * restarts). Every capturing commit reads and writes it in its transaction,
 * so two tabs on one store never hand out the same sequence or clock.
 */
export const replicaStateSchema = z.strictObject({
  device: deviceIdSchema,
  seq: z.number().check(z.int(), z.gte(0)),
  acknowledged: z.number().check(z.int(), z.gte(0)),
  clock: hlcSchema,
});
export type ReplicaState = z.infer<typeof replicaStateSchema>;

/**
 * A row of `syncVersions`: the clock of a record's latest version on this
 * replica, whether it is a tombstone (a delete, kept so that an older put
 * arriving later does not bring the record back), and for kinds merged per
 * field (profiles) each field's clock and the field values they are for.
 */
export const syncVersionSchema = z.strictObject({
  /** `kind/id` (synced-kinds.ts `recordKey`). */
  key: z.string().check(z.minLength(3)),
  kind: kindSchema,
  id: idSchema,
  hlc: hlcSchema,
  deleted: z.boolean(),
  clocks: z.optional(fieldClocksSchema),
  fields: z.optional(z.record(z.string(), z.unknown())),
});
export type SyncVersion = z.infer<typeof syncVersionSchema>;

/**
 * A row of `syncOutbox`: a record changed on this replica and not yet held
 * by the hub. One row per record (keyed like its version): a second local
 * change replaces the row with the later sequence, so a record changed
 * twice between pushes is sent once, as it is now.
 */
export const syncOutboxSchema = z.strictObject({
  key: z.string().check(z.minLength(3)),
  kind: kindSchema,
  id: idSchema,
  seq: sequenceSchema,
  /** The local change's clock (this device's): the pushed row carries it. */
  hlc: hlcSchema,
  op: z.enum(['put', 'delete']),
});
export type SyncOutboxRow = z.infer<typeof syncOutboxSchema>;

/** The tables a capturing commit writes besides the records (meta holds `ReplicaState`). */
export const REPLICA_TABLES = ['meta', 'syncOutbox', 'syncVersions'] as const;
