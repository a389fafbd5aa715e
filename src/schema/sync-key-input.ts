import * as z from 'zod/mini';
import { builtSchema, lazySchema } from './lazy-schema.js';

/**
 * What `createSyncKey` (sync-key.ts) accepts, apart from the key making so
 * that `createMemory({ sync })` can validate it without loading the key derivation.
 */

/**
 * What the app provides, one of:
 * - `{ key }`: an HKDF base key it holds as a CryptoKey, e.g.
 *   `crypto.subtle.importKey('raw', bytes, 'HKDF', false, ['deriveKey'])`
 *   (non-extractable is fine).
 * - `{ secret }`: at least 32 bytes of high-entropy secret (random bytes, or
 *   text such as a base64 of them), expanded with HKDF. Not for passwords.
 * - `{ passphrase, salt }`: something a person remembers, stretched with
 *   PBKDF2-SHA-256 (`iterations`, default 600,000) before HKDF. The salt must
 *   be the same on every device of the space and should differ between
 *   spaces: the space id is a good salt.
 * - `{ encryptionKey, hashKey }`: an AES-GCM key (encrypt + decrypt) and an
 *   HMAC-SHA-256 key (sign) managed by the app, used as they are. The key tag
 *   is then made from `hashKey` alone.
 */
export type SyncKeyInput =
  | { key: CryptoKey }
  | { secret: string | Uint8Array }
  | { passphrase: string; salt: string | Uint8Array; iterations?: number }
  | { encryptionKey: CryptoKey; hashKey: CryptoKey };

/** OWASP's current recommendation for PBKDF2-HMAC-SHA-256. */
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;
const MIN_PBKDF2_ITERATIONS = 100_000;
const MIN_SECRET_BYTES = 32;

const isCryptoKey = (v: unknown): v is CryptoKey => Object.prototype.toString.call(v) === '[object CryptoKey]';
const isUint8Array = (v: unknown): v is Uint8Array => Object.prototype.toString.call(v) === '[object Uint8Array]';
const cryptoKey = (check: (key: CryptoKey) => boolean, message: string) => z.custom<CryptoKey>((v) => isCryptoKey(v) && check(v), message);
const bytesOrText = z.union([z.string(), z.custom<Uint8Array>(isUint8Array, 'must be a string or a Uint8Array')]);
const byteLength = (v: string | Uint8Array) => (typeof v === 'string' ? new TextEncoder().encode(v).length : v.length);

const variants = () => [
  z.strictObject({ key: cryptoKey((k) => k.algorithm.name === 'HKDF' && k.usages.includes('deriveKey'), "must be an HKDF CryptoKey with the 'deriveKey' usage") }),
  z.strictObject({ secret: bytesOrText.check(z.refine((v) => byteLength(v) >= MIN_SECRET_BYTES, `must be at least ${MIN_SECRET_BYTES} bytes of high-entropy secret (for a password, use { passphrase, salt })`)) }),
  z.strictObject({
    passphrase: z.string().check(z.minLength(1)),
    salt: bytesOrText.check(z.refine((v) => byteLength(v) > 0, 'must not be empty')),
    iterations: z.optional(z.number().check(z.int(), z.gte(MIN_PBKDF2_ITERATIONS, `must be at least ${MIN_PBKDF2_ITERATIONS}`))),
  }),
  z.strictObject({
    encryptionKey: cryptoKey(
      (k) => k.algorithm.name === 'AES-GCM' && (k.algorithm as AesKeyAlgorithm).length === 256 && k.usages.includes('encrypt') && k.usages.includes('decrypt'),
      "must be a 256-bit AES-GCM CryptoKey with the 'encrypt' and 'decrypt' usages",
    ),
    hashKey: cryptoKey(
      (k) => k.algorithm.name === 'HMAC' && (k.algorithm as HmacKeyAlgorithm).hash.name === 'SHA-256' && k.usages.includes('sign'),
      "must be an HMAC SHA-256 CryptoKey with the 'sign' usage",
    ),
  }),
] as const;
export const syncKeyInputSchema = lazySchema(() => z.union(variants()));

/** The variant the input means, told by its first field, so a wrong value is reported against that variant's fields (a union says only "Invalid input"). */
export function variantOf(input: unknown): z.ZodMiniType {
  if (input === null || typeof input !== 'object') return syncKeyInputSchema;
  const [key, secret, passphrase, pair] = builtSchema(syncKeyInputSchema).def.options;
  if ('encryptionKey' in input || 'hashKey' in input) return pair;
  if ('passphrase' in input) return passphrase;
  if ('secret' in input) return secret;
  if ('key' in input) return key;
  return syncKeyInputSchema;
}
