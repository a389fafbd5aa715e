import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { fromBase64Url, toBase64Url } from './base64url.js';
import { changeSchema, type Change } from './change.js';
import type { SealedRow } from './protocol.js';

/**
 * The plaintext of a sealed change: the parts that are not already in the
 * clear routing fields (kind, id, record, vector, field clocks), as JSON.
 *
 * - The vector travels as its float32 bytes (little-endian, base64url): a
 *   third of the size of its numbers as JSON text, and exact.
 * - The JSON is padded with spaces (which JSON.parse ignores) to a multiple
 *   of `PADDING_BLOCK` bytes, so a row's size tells the hub the size of its
 *   text only to within that block.
 */
export const PADDING_BLOCK = 256;

const plaintextSchema = z.strictObject({
  k: z.string(),
  i: z.string(),
  r: z.optional(z.record(z.string(), z.unknown())),
  v: z.optional(z.strictObject({ e: z.string(), d: z.string() })),
  c: z.optional(z.record(z.string(), z.string())),
});

export function encodePayload(change: Change): Uint8Array<ArrayBuffer> {
  const body: z.infer<typeof plaintextSchema> = { k: change.kind, i: change.id };
  if (change.op === 'put') {
    body.r = change.record;
    if (change.vector) body.v = { e: change.vector.embedder, d: toBase64Url(float32Bytes(change.vector.values)) };
    if (change.clocks) body.c = change.clocks;
  }
  const json = new TextEncoder().encode(JSON.stringify(body));
  const padded = new Uint8Array(Math.ceil((json.length + 1) / PADDING_BLOCK) * PADDING_BLOCK).fill(0x20);
  padded.set(json);
  return padded;
}

/**
 * The change a plaintext and its row's clear fields describe, or undefined
 * when the plaintext is not one (only a device holding the key could have
 * sealed it, so that is a bug or a compromised device, refused like tampering).
 */
export function decodePayload(plaintext: Uint8Array, row: Pick<SealedRow, 'device' | 'op' | 'hlc'>): Change | undefined {
  let body: z.infer<typeof plaintextSchema>;
  try {
    const parsed = safeParse(plaintextSchema, JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)));
    if (!parsed.success) return undefined;
    body = parsed.data;
  } catch {
    return undefined;
  }
  const common = { kind: body.k, id: body.i, hlc: row.hlc, device: row.device };
  let candidate: unknown;
  if (row.op === 'delete') {
    if (body.r !== undefined || body.v !== undefined || body.c !== undefined) return undefined;
    candidate = { ...common, op: 'delete' };
  } else {
    if (body.r === undefined) return undefined;
    const vectorBytes = body.v ? fromBase64Url(body.v.d) : undefined;
    if (body.v && (!vectorBytes || vectorBytes.length % 4 !== 0)) return undefined;
    candidate = {
      ...common,
      op: 'put',
      record: body.r,
      ...(body.v ? { vector: { embedder: body.v.e, values: float32Values(vectorBytes!) } } : {}),
      ...(body.c ? { clocks: body.c } : {}),
    };
  }
  const change = safeParse(changeSchema, candidate);
  return change.success ? change.data : undefined;
}

function float32Bytes(values: Float32Array): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true);
  return bytes;
}

function float32Values(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(bytes.length / 4);
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat32(i * 4, true);
  return values;
}
