import * as z from 'zod/mini';
import { deviceIdSchema } from './device-id.js';
import { cursorSchema, sequenceSchema } from './protocol.js';

/**
 * Where a device is in its space's stream, stored by the device after each
 * applied batch (in the same commit as the batch, so a crash between them
 * cannot happen) and read back to resume after a reload, a crash or time
 * offline:
 * - `cursor`: the hub cursor to pull after;
 * - `seen`: the highest sequence number taken from each other device. A row
 *   at or below it is a replay and is refused; this is what lets a device
 *   tell a replayed row from a new one when the hub cannot be trusted.
 */
export const pullStateSchema = z.strictObject({
  cursor: cursorSchema,
  seen: z.record(deviceIdSchema, sequenceSchema),
});
export type PullState = z.infer<typeof pullStateSchema>;

/** A device that has never pulled. */
export function initialPullState(): PullState {
  return { cursor: '0', seen: {} };
}
