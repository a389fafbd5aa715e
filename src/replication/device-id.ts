import * as z from 'zod/mini';
import { toBase64Url } from './base64url.js';

/**
 * A replica's device id: which store wrote a change. It is part of every
 * hybrid logical clock (the tie-break) and of the routing metadata the hub
 * sees, so it is random, never derived from a user or a machine name. The
 * alphabet is ASCII letters, digits, `_` and `-`: their byte order, UTF-16
 * order and Postgres's "C" collation agree, so a clock compares the same in
 * JavaScript and in the hub's SQL.
 */
export const deviceIdSchema = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -'));
export type DeviceId = z.infer<typeof deviceIdSchema>;

/** A new random device id (128 bits). */
export function newDeviceId(): DeviceId {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
}
