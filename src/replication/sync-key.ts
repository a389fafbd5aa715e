import * as z from 'zod/mini';
import { ValidationError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { toBase64Url } from './base64url.js';
import { DEFAULT_PBKDF2_ITERATIONS, syncKeyInputSchema, variantOf, type SyncKeyInput } from '../schema/sync-key-input.js';
import { TAG_BYTES } from './protocol.js';

/**
 * The key a space's rows are sealed under, made on the device from what the
 * app provides; the hub never sees it. It is two WebCrypto keys (the platform's
 * `crypto.subtle`, the same in browsers, workers and Node 20):
 * - `encryption`: AES-GCM (256-bit) seals each change;
 * - `hashing`: HMAC-SHA-256 hashes record ids for the hub's compaction and
 *   makes the key and space tags.
 * Both are derived with HKDF-SHA-256 from one base key (different `info`
 * labels, so neither reveals the other), unless the app brings both itself.
 */
export interface SyncKey {
  readonly encryption: CryptoKey;
  readonly hashing: CryptoKey;
  /** A fingerprint of the key (HMAC of a fixed label): the same on every device with the same key, and reveals nothing of it. */
  readonly keyTag: string;
}

export { syncKeyInputSchema, variantOf, DEFAULT_PBKDF2_ITERATIONS, type SyncKeyInput } from '../schema/sync-key-input.js';

const encoder = new TextEncoder();
/** HKDF's salt: fixed, as the base key is already uniformly random (RFC 5869 §3.1); it separates engram's keys from any other use of the base. */
const HKDF_SALT = encoder.encode('engram-sync/v1');

/**
 * Makes the key a space's rows are sealed under from what the app provides
 * (see `SyncKeyInput`). Throws a ValidationError for an input it cannot
 * use (a short secret, a key of the wrong algorithm or usages).
 */
export async function createSyncKey(input: SyncKeyInput): Promise<SyncKey> {
  // Not a plain-data copy (CryptoKeys are host objects, immutable); bytes are copied below before any await.
  const parsed = parseInput(variantOf(input), input, 'createSyncKey', { copy: false }) as z.output<typeof syncKeyInputSchema>;
  const bytes = (v: string | Uint8Array) => (typeof v === 'string' ? encoder.encode(v) : new Uint8Array(v));
  let base: CryptoKey;
  let pair: { encryption: CryptoKey; hashing: CryptoKey } | undefined;
  if ('encryptionKey' in parsed) pair = { encryption: parsed.encryptionKey, hashing: parsed.hashKey };
  if ('key' in parsed) base = parsed.key;
  else if ('secret' in parsed) base = await crypto.subtle.importKey('raw', bytes(parsed.secret), 'HKDF', false, ['deriveKey']);
  else if ('passphrase' in parsed) {
    const passphrase = encoder.encode(parsed.passphrase);
    const salt = bytes(parsed.salt);
    const stretched = await crypto.subtle.deriveBits(
      { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: parsed.iterations ?? DEFAULT_PBKDF2_ITERATIONS },
      await crypto.subtle.importKey('raw', passphrase, 'PBKDF2', false, ['deriveBits']),
      256,
    );
    base = await crypto.subtle.importKey('raw', stretched, 'HKDF', false, ['deriveKey']);
  }
  if (!pair) {
    const derive = (info: string, algorithm: AesKeyGenParams | HmacKeyGenParams, usages: KeyUsage[]) =>
      crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: HKDF_SALT, info: encoder.encode(info) }, base!, algorithm, false, usages);
    pair = {
      encryption: await derive('engram-sync/v1 aes-gcm', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']),
      hashing: await derive('engram-sync/v1 hmac', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']),
    };
  }
  const keyTag = await tag(pair.hashing, 'engram-sync/v1 key-tag');
  return Object.freeze({ ...pair, keyTag });
}

/** HMAC-SHA-256 of `label`, cut to the tag length, as base64url. */
async function tag(hashing: CryptoKey, label: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hashing, encoder.encode(label)));
  return toBase64Url(mac.subarray(0, TAG_BYTES));
}

/**
 * The space's tag under this key: the same on every device of the space,
 * different for another space. A hub keeps it beside the key tag, and a
 * device refuses a batch carrying another one (reason 'foreign_space').
 */
export async function spaceTag(key: SyncKey, space: string): Promise<string> {
  if (typeof space !== 'string' || space.length === 0) throw new ValidationError('spaceTag: space must be a non-empty string', [{ path: 'space', message: 'must be a non-empty string' }]);
  return tag(key.hashing, `engram-sync/v1 space\u0000${space}`);
}
