import type { SealedRow } from './protocol.js';

/**
 * The associated data AES-GCM authenticates with each sealed change: the
 * protocol version, the space (the device's own name for it, never read from
 * the hub), and every routing field the hub sees in the clear. Opening a row
 * with any of them changed fails, so the hub cannot move a row to another
 * space, another device or another sequence number, turn a put into a
 * delete, change its clock or point it at another record.
 *
 * The encoding is a JSON array of those values: unambiguous (no separator
 * can be forged inside a field) and the same on every platform.
 */
export function associatedData(space: string, row: Pick<SealedRow, 'device' | 'seq' | 'op' | 'hlc' | 'keyHash'>): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(['engram-sync/v1', space, row.device, row.seq, row.op, row.hlc, row.keyHash]));
}
