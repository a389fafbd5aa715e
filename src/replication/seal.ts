import * as z from 'zod/mini';
import { idSchema } from '../schema/common.js';
import { parseInput } from '../schema/parse.js';
import { associatedData } from './associated-data.js';
import { fromBase64Url, toBase64Url } from './base64url.js';
import { changeSchema, type Change } from './change.js';
import { decodePayload, encodePayload } from './payload.js';
import { NONCE_BYTES, sequenceSchema, type SealedRow } from './protocol.js';
import { recordHash } from './record-hash.js';
import type { SyncKey } from './sync-key.js';

const sealInputSchema = z.strictObject({ space: idSchema, seq: sequenceSchema, change: changeSchema });

/**
 * Seals one change for the hub: AES-256-GCM under the space's key with a
 * fresh random 96-bit nonce, authenticating the clear routing fields and the
 * space as associated data (associated-data.ts). `seq` is the device's
 * sequence number for the change (1, 2, 3, ... in commit order); the hub
 * stores a row once per (space, device, seq), so sealing the same change
 * again for a retry is harmless.
 *
 * A random nonce stays safe for about 2^32 rows under one key (NIST SP
 * 800-38D's bound for random nonces); a space that large should move to a
 * new key.
 */
export async function sealChange(key: SyncKey, input: { space: string; seq: number; change: Change }): Promise<SealedRow> {
  const { space, seq, change } = parseInput(sealInputSchema, input, 'sealChange');
  const clear = { device: change.device, seq, op: change.op, hlc: change.hlc, keyHash: await recordHash(key, change.kind, change.id) };
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: associatedData(space, clear) }, key.encryption, encodePayload(change));
  return { ...clear, nonce: toBase64Url(nonce), ciphertext: toBase64Url(new Uint8Array(ciphertext)) };
}

/**
 * The change a sealed row holds, or undefined when it does not open: the
 * ciphertext, nonce or any bound field was altered, it was sealed for
 * another space or under another key, or its record hash is not its
 * record's. AES-GCM cannot tell those apart; the batch opener tells wrong
 * keys and foreign spaces by their tags first (open-batch.ts).
 */
export async function openRow(key: SyncKey, space: string, row: SealedRow): Promise<Change | undefined> {
  const nonce = fromBase64Url(row.nonce);
  const ciphertext = fromBase64Url(row.ciphertext);
  if (!nonce || !ciphertext) return undefined;
  let plaintext: Uint8Array;
  try {
    plaintext = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce, additionalData: associatedData(space, row) }, key.encryption, ciphertext));
  } catch {
    return undefined;
  }
  const change = decodePayload(plaintext, row);
  if (!change || (await recordHash(key, change.kind, change.id)) !== row.keyHash) return undefined;
  return change;
}
