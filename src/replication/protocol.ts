import * as z from 'zod/mini';
import { base64UrlLength } from './base64url.js';
import { deviceIdSchema } from './device-id.js';
import { hlcSchema } from './hlc.js';
import { MAX_PUSH_ROWS } from '../schema/hub-client-options.js';

/**
 * The sync wire protocol, version 1: what a device sends a hub and what the
 * hub answers, as JSON over HTTP.
 *
 *   POST <hub>/push   PushRequest  → PushResponse
 *   GET  <hub>/pull?device=<id>&after=<cursor>&limit=<n>  → PullResponse
 *   any refusal: HTTP status + { error: { reason, message } }
 *
 * A row is one sealed change (seal.ts). What travels in the clear is what
 * the hub needs to route, order and compact rows, and nothing about the
 * memory itself: the device and its sequence number, the operation (the hub
 * must know tombstones to drop them once every device has passed them), the
 * hybrid logical clock, and a
 * keyed hash of the record's kind and id (which rows are about the same
 * record, without saying which record). The kind, id, record, vector and
 * any user id are inside the ciphertext; every clear field is bound to it as
 * associated data, so the hub cannot alter one without the row failing to open.
 *
 * Why the clock is in the clear: the hub keeps one row per record, the last
 * writer's, and that is decided by clock, not by arrival (edits made offline
 * arrive late and may still be last). Without the clock the hub would keep
 * the last arrival and hand a device joining later the losing version. What
 * it reveals beyond the arrival time the hub sees anyway is the wall time of
 * each write (earlier than its arrival for offline edits). docs/sync.md, "Why
 * the clock travels in the clear".
 */
export const SYNC_PROTOCOL_VERSION = 1;

/** AES-GCM's nonce: 96 bits. */
export const NONCE_BYTES = 12;
/** The keyed hash of a record's kind and id: HMAC-SHA-256 cut to 128 bits (no collision among any space's records). */
export const RECORD_HASH_BYTES = 16;
/** Key and space tags: HMAC-SHA-256 cut to 96 bits; they tell a wrong key or a foreign space from tampering. */
export const TAG_BYTES = 12;
/** The largest sealed change: a record of 1 MB of JSON with its vector fits well under it. */
export const MAX_CIPHERTEXT_BYTES = 2 * 1024 * 1024;

const base64url = (bytes: number, what: string) =>
  z.string().check(z.length(base64UrlLength(bytes), `must be ${bytes} bytes as base64url`), z.regex(/^[A-Za-z0-9_-]+$/, `must be ${what} as base64url`));

/** Cursors are a hub's row positions (Postgres bigint), as decimal text: they pass 2^53. */
export const cursorSchema = z.string().check(z.regex(/^(0|[1-9][0-9]{0,18})$/, 'must be a cursor (a non-negative integer as decimal text)'));
export type Cursor = z.infer<typeof cursorSchema>;

/** A device's sequence number for its changes: 1, 2, 3, ... in commit order. */
export const sequenceSchema = z.number().check(z.int(), z.gte(1), z.lte(Number.MAX_SAFE_INTEGER));

export const recordHashSchema = base64url(RECORD_HASH_BYTES, 'a record hash');
export const tagSchema = base64url(TAG_BYTES, 'a tag');

/** One sealed change as a device pushes it. */
export const sealedRowSchema = z.strictObject({
  device: deviceIdSchema,
  seq: sequenceSchema,
  op: z.enum(['put', 'delete']),
  hlc: hlcSchema,
  keyHash: recordHashSchema,
  nonce: base64url(NONCE_BYTES, 'a nonce'),
  ciphertext: z.string().check(
    z.minLength(base64UrlLength(16), 'must hold at least the AES-GCM tag'),
    z.maxLength(base64UrlLength(MAX_CIPHERTEXT_BYTES), `must be at most ${MAX_CIPHERTEXT_BYTES} bytes`),
    z.regex(/^[A-Za-z0-9_-]+$/, 'must be base64url'),
  ),
});
export type SealedRow = z.infer<typeof sealedRowSchema>;

/** A sealed row as the hub hands it back: with its position in the space's stream. */
export const pulledRowSchema = z.strictObject({ ...sealedRowSchema.shape, cursor: cursorSchema });
export type PulledRow = z.infer<typeof pulledRowSchema>;

export { MAX_PUSH_ROWS } from '../schema/hub-client-options.js';

export const pushRequestSchema = z.strictObject({
  protocol: z.literal(SYNC_PROTOCOL_VERSION),
  /** The pushing device: every row must be its own. */
  device: deviceIdSchema,
  /** The key's tag: a hub keeps the first one a space was written with and refuses rows sealed under another key. */
  keyTag: tagSchema,
  /** The space's tag under that key: likewise, a device configured with another space's name is refused. */
  spaceTag: tagSchema,
  rows: z.array(sealedRowSchema).check(z.minLength(1), z.maxLength(MAX_PUSH_ROWS)),
});
export type PushRequest = z.infer<typeof pushRequestSchema>;

export const pushResponseSchema = z.strictObject({
  protocol: z.literal(SYNC_PROTOCOL_VERSION),
  /** Rows stored now. */
  stored: z.number().check(z.int(), z.gte(0)),
  /** Rows the hub already had (a retry): their sequence was at or below the device's last stored one. */
  skipped: z.number().check(z.int(), z.gte(0)),
  /** The device's highest sequence the hub holds: every change up to it is safe on the hub. */
  through: z.number().check(z.int(), z.gte(0)),
});
export type PushResponse = z.infer<typeof pushResponseSchema>;

export const pullResponseSchema = z.strictObject({
  protocol: z.literal(SYNC_PROTOCOL_VERSION),
  /** The tags the space's rows were sealed with; null while nothing has been pushed to the space. */
  keyTag: z.nullable(tagSchema),
  spaceTag: z.nullable(tagSchema),
  /** Rows after the asked cursor, in cursor order (the pulling device's own rows left out). */
  rows: z.array(pulledRowSchema),
  /** The cursor to ask after next time: every row up to it has been handed out (or compacted away). */
  next: cursorSchema,
  /** Whether rows after `next` were held back by the batch limit (pull again now). */
  more: z.boolean(),
});
export type PullResponse = z.infer<typeof pullResponseSchema>;

/** What a hub says when it refuses a request: `reason` is machine-readable, `message` says what to do. */
export const hubErrorBodySchema = z.object({
  error: z.object({ reason: z.string().check(z.maxLength(100)), message: z.string().check(z.maxLength(2000)) }),
});
export type HubErrorBody = z.infer<typeof hubErrorBodySchema>;
