import { toBase64Url } from './base64url.js';
import { RECORD_HASH_BYTES } from './protocol.js';
import type { SyncKey } from './sync-key.js';

/**
 * The keyed hash of a record's kind and id (HMAC-SHA-256, cut to 128 bits):
 * what the hub groups rows by to keep only the last write of each record.
 * Keyed, so the hub cannot test guesses of an id (a user id inside a
 * record's id, say) against it.
 */
export async function recordHash(key: SyncKey, kind: string, id: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key.hashing, new TextEncoder().encode(JSON.stringify(['engram-sync/v1 record', kind, id])));
  return toBase64Url(new Uint8Array(mac).subarray(0, RECORD_HASH_BYTES));
}
