import * as z from 'zod/mini';
import { idSchema } from '../schema/common.js';
import { MAX_EMBEDDING_DIMENSION } from '../schema/fact.js';
import { deviceIdSchema } from './device-id.js';
import { hlcDevice, hlcSchema } from './hlc.js';

/**
 * A change is what replicas exchange: the new state of one record (`put`) or
 * its deletion (`delete`, a tombstone), stamped with the hybrid logical clock
 * of the commit that made it and the device that made it. It is the unit of
 * conflict resolution (merge-rules.ts) and of sealing (seal.ts): one change,
 * one sealed row.
 *
 * Memory kinds are named by string: which kinds exist, and what a record of
 * each looks like, is the registry's to say (the engine validates `record`
 * against the kind's own schema when it applies a change). Nothing here
 * lists them, so a kind added later syncs without touching this folder.
 */
export const kindSchema = z.string().check(z.regex(/^[a-z][A-Za-z0-9_.-]{0,63}$/, 'must be a kind name: a lower-case letter, then up to 63 letters, digits, _, . or -'));
export type Kind = z.infer<typeof kindSchema>;

const isFloat32Array = (v: unknown): v is Float32Array => Object.prototype.toString.call(v) === '[object Float32Array]';

/**
 * A record's embedding, travelling with it so the receiver need not
 * recompute it when it uses the same embedder (`embedder` is the embedder's
 * id, as the store records it; another id means the receiver embeds the
 * record itself).
 */
export const syncedVectorSchema = z.strictObject({
  embedder: z.string().check(z.minLength(1), z.maxLength(200)),
  values: z.custom<Float32Array>(isFloat32Array, 'must be a Float32Array').check(
    z.refine((v) => v.length > 0 && v.length <= MAX_EMBEDDING_DIMENSION, `must have 1 to ${MAX_EMBEDDING_DIMENSION} numbers`),
    z.refine((v) => v.every(Number.isFinite), 'must hold finite numbers only'),
  ),
});
export type SyncedVector = z.infer<typeof syncedVectorSchema>;

/**
 * Per-field clocks, for kinds merged field by field (a profile: the city
 * changed on one device and the name on another both survive). Keys are the
 * record's field names.
 */
export const fieldClocksSchema = z.record(z.string().check(z.minLength(1), z.maxLength(100)), hlcSchema);
export type FieldClocks = z.infer<typeof fieldClocksSchema>;

/** A record as plain JSON data; its shape is the kind's schema's to check. */
export const syncedRecordSchema = z.record(z.string(), z.unknown());

const common = {
  kind: kindSchema,
  id: idSchema,
  hlc: hlcSchema,
  device: deviceIdSchema,
};

export const putChangeSchema = z.strictObject({
  ...common,
  op: z.literal('put'),
  record: syncedRecordSchema,
  vector: z.optional(syncedVectorSchema),
  clocks: z.optional(fieldClocksSchema),
});

export const deleteChangeSchema = z.strictObject({
  ...common,
  op: z.literal('delete'),
});

/** A clock names the device that made the event: a change's clock and device must agree. */
export const changeSchema = z.discriminatedUnion('op', [putChangeSchema, deleteChangeSchema]).check(
  z.refine((change) => hlcDevice(change.hlc) === change.device, { message: "must carry a clock made by its own device (the clock's device part is not `device`)", path: ['hlc'] }),
);
export type Change = z.infer<typeof changeSchema>;
export type PutChange = z.infer<typeof putChangeSchema>;
export type DeleteChange = z.infer<typeof deleteChangeSchema>;
export type ChangeOp = Change['op'];
