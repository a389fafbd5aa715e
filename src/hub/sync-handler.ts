import * as z from 'zod/mini';
import { SyncError, ValidationError, type SyncErrorReason } from '../errors.js';
import { readJsonBody, type JsonBodyRefusal } from '../llm/request-body.js';
import { idSchema } from '../schema/common.js';
import { parseInput } from '../schema/parse.js';
import { safeParse } from '../schema/safe-parse.js';
import { deviceIdSchema } from '../replication/device-id.js';
import { DEFAULT_TOMBSTONE_TTL_MS } from '../replication/merge-rules.js';
import { cursorSchema, MAX_PUSH_ROWS, pushRequestSchema, SYNC_PROTOCOL_VERSION, type PullResponse, type PushResponse } from '../replication/protocol.js';
import type { SyncStore } from './sync-store.js';

const isFunction = (v: unknown) => typeof v === 'function';

export const syncHandlerOptionsSchema = z.strictObject({
  /** Where rows are kept: `postgresSyncStore(pool)` or `pgliteSyncStore(db)`. */
  store: z.custom<SyncStore>((v) => typeof v === 'object' && v !== null && ['push', 'pull', 'compact'].every((m) => isFunction((v as unknown as Record<string, unknown>)[m])), 'must be a SyncStore (postgresSyncStore(pool) or pgliteSyncStore(db))'),
  /**
   * The app's authorization: the space the request may read and write (a
   * user id, a team id), or null/undefined to refuse it (401). The handler
   * never takes a space from the request itself.
   */
  authorize: z.custom<(request: Request) => string | null | undefined | Promise<string | null | undefined>>(isFunction, 'must be a function (request) => spaceId | null'),
  /** Largest accepted push body in bytes (default 8 MB), enforced while it streams in. */
  maxBodyBytes: z.optional(z.number().check(z.int(), z.gte(64 * 1024))),
  /** The whole push body must arrive within this time (default 30000 ms). */
  bodyTimeoutMs: z.optional(z.number().check(z.int(), z.gte(100), z.lte(600_000))),
  /** Most rows one push may carry (default and at most 1000). */
  maxPushRows: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_PUSH_ROWS))),
  /** Most rows one pull hands out (default 1000). */
  maxPullRows: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000))),
  /** A pull stops adding rows once their sealed bytes pass this (default 4 MB; one row is always sent). */
  maxPullBytes: z.optional(z.number().check(z.int(), z.gte(64 * 1024))),
  /** How long a tombstone that some device has not passed is kept (default 30 days); see docs/sync.md. */
  tombstoneTtlMs: z.optional(z.number().check(z.int(), z.gte(60_000))),
  /** A space's tombstones are compacted after a pull at most this often (default 60000 ms). */
  compactEveryMs: z.optional(z.number().check(z.int(), z.gte(0))),
  /** Told of failures the client only sees as 500/503 (the store down, authorize throwing), for the app's logs. */
  onError: z.optional(z.custom<(error: unknown, context: { operation: string }) => void>(isFunction, 'must be a function')),
  /** The clock (default Date.now); injected in tests. */
  now: z.optional(z.custom<() => number>(isFunction, 'must be a function')),
});
/** `createSyncHandler`'s options: the hub's store, the app's `authorize(request) → spaceId`, and limits (see docs/sync.md). */
export type SyncHandlerOptions = z.input<typeof syncHandlerOptionsSchema>;

/** The HTTP status of each refusal a hub sends. */
const STATUS: Partial<Record<SyncErrorReason, number>> = {
  malformed: 400,
  unauthorized: 401,
  wrong_key: 409,
  foreign_space: 409,
  expired: 410,
  too_large: 413,
};

/** Spaces whose last compaction time is remembered, at most: an old entry only means one compaction sooner. */
const MAX_REMEMBERED_SPACES = 10_000;

/**
 * The sync hub's HTTP handler: a web-standard `(Request) => Promise<Response>`
 * (Node's `http` through `toNodeHandler`, Express, Next.js route handlers,
 * Hono, Deno, Bun). It serves two routes, matched by the end of the path so
 * it can be mounted under any prefix:
 *
 *   POST …/push   a device's sealed rows (protocol.ts PushRequest)
 *   GET  …/pull?device=&after=&limit=   rows after a cursor (PullResponse)
 *
 * Each request is authorized first (`authorize(request) → spaceId`), before
 * its body is read. Refusals are an HTTP status and `{ error: { reason,
 * message } }`: 400 malformed, 401 unauthorized, 404/405 route, 408 body
 * too slow, 409 wrong_key / foreign_space, 410 expired, 413 too_large, 503
 * unavailable (the store failed: retry later). The hub never opens a row: it
 * holds no key.
 */
export function createSyncHandler(options: SyncHandlerOptions): (request: Request) => Promise<Response> {
  const opts = parseInput(syncHandlerOptionsSchema, options, 'createSyncHandler', { copy: false });
  const store = opts.store;
  const now = opts.now ?? Date.now;
  const maxBody = opts.maxBodyBytes ?? 8 * 1024 * 1024;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 30_000;
  const maxPushRows = opts.maxPushRows ?? MAX_PUSH_ROWS;
  const maxPullRows = opts.maxPullRows ?? 1000;
  const maxPullBytes = opts.maxPullBytes ?? 4 * 1024 * 1024;
  const ttl = opts.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
  const compactEvery = opts.compactEveryMs ?? 60_000;
  const lastCompaction = new Map<string, number>();

  const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } });
  const fail = (status: number, reason: string, message: string) => json({ error: { reason, message } }, status);
  /** A refused body: its own reason when it was too large or too slow, `otherwise` when it was not what this handler reads. */
  const refuse = (refusal: JsonBodyRefusal, otherwise: string) =>
    fail(refusal.status, refusal.problem === 'too_large' || refusal.problem === 'body_timeout' ? refusal.problem : otherwise, refusal.message);
  const report = (error: unknown, operation: string) => {
    try {
      opts.onError?.(error, { operation });
    } catch {
      // The app's logger failing must not change the answer.
    }
  };
  /** A store failure: a refusal it decided (wrong key, expired) keeps its status; anything else is the store being down. */
  const storeFailure = (error: unknown, operation: string) => {
    if (error instanceof SyncError && STATUS[error.reason]) return fail(STATUS[error.reason]!, error.reason, error.message);
    report(error, operation);
    return fail(503, 'unavailable', 'The hub could not reach its database; retry later.');
  };

  const compactSoon = async (space: string) => {
    const at = now();
    if (at - (lastCompaction.get(space) ?? -Infinity) < compactEvery) return;
    if (lastCompaction.size >= MAX_REMEMBERED_SPACES) lastCompaction.clear();
    lastCompaction.set(space, at);
    try {
      await store.compact(space, { now: at, tombstoneTtlMs: ttl });
    } catch (error) {
      // A failed compaction loses nothing: it runs again on a later pull.
      report(error, 'compact');
    }
  };

  const push = async (request: Request, space: string) => {
    const body = await readJsonBody(request, pushRequestSchema, {
      maxBytes: maxBody,
      timeoutMs: bodyTimeoutMs,
      noun: 'push body',
      tooLargeHint: 'push fewer rows at a time',
      invalidPrefix: `Not a sync push (protocol ${SYNC_PROTOCOL_VERSION})`,
    });
    if ('refused' in body) return refuse(body.refused, 'malformed');
    const push = body.data;
    if (push.rows.length > maxPushRows) return fail(413, 'too_large', `A push may carry at most ${maxPushRows} rows; this one has ${push.rows.length}.`);
    for (const [i, row] of push.rows.entries()) {
      if (row.device !== push.device) return fail(400, 'malformed', `Row ${i} is device "${row.device}"'s, not the pushing device's ("${push.device}"): a device pushes its own rows only.`);
      if (i > 0 && row.seq <= push.rows[i - 1]!.seq) return fail(400, 'malformed', `Row ${i}'s sequence (${row.seq}) is not above the row before's: push rows in sequence order.`);
      if (!row.hlc.endsWith(`-${row.device}`)) return fail(400, 'malformed', `Row ${i}'s clock was not made by its device.`);
    }
    try {
      const result = await store.push(space, push, now());
      return json({ protocol: SYNC_PROTOCOL_VERSION, stored: result.stored, skipped: result.skipped, through: result.through } satisfies PushResponse);
    } catch (error) {
      return storeFailure(error, 'push');
    }
  };

  const pull = async (url: URL, space: string) => {
    const query = safeParse(
      z.strictObject({
        device: deviceIdSchema,
        after: z.optional(cursorSchema),
        limit: z.optional(z.string().check(z.regex(/^[1-9][0-9]{0,5}$/, 'must be a positive integer'))),
      }),
      Object.fromEntries(url.searchParams),
    );
    if (!query.success) {
      const issue = query.error.issues[0];
      return fail(400, 'malformed', `Not a sync pull: ${issue?.path.join('.') || 'query'} ${issue?.message ?? ''}`.trim());
    }
    const { device, after = '0' } = query.data;
    const limit = Math.min(Number(query.data.limit ?? maxPullRows), maxPullRows);
    let result;
    try {
      result = await store.pull(space, { device, after, limit, maxBytes: maxPullBytes }, now());
    } catch (error) {
      return storeFailure(error, 'pull');
    }
    await compactSoon(space);
    return json({ protocol: SYNC_PROTOCOL_VERSION, ...result } satisfies PullResponse);
  };

  return async (request) => {
    const url = new URL(request.url);
    const route = url.pathname.endsWith('/push') ? 'push' : url.pathname.endsWith('/pull') ? 'pull' : undefined;
    if (!route) return fail(404, 'not_found', 'The sync hub serves …/push (POST) and …/pull (GET).');
    const method = route === 'push' ? 'POST' : 'GET';
    if (request.method !== method) return fail(405, 'method', `…/${route} takes ${method}.`);

    let space: string | null | undefined;
    try {
      space = await opts.authorize(request);
    } catch (error) {
      report(error, 'authorize');
      return fail(500, 'internal', 'The hub could not check the credentials.');
    }
    if (space === null || space === undefined) return fail(401, 'unauthorized', 'The hub refused these credentials.');
    const checked = safeParse(idSchema, space);
    if (!checked.success) {
      report(new ValidationError(`authorize returned an unusable space id: ${checked.error.issues[0]?.message ?? ''}`), 'authorize');
      return fail(500, 'internal', 'The hub could not check the credentials.');
    }
    return route === 'push' ? push(request, checked.data) : pull(url, checked.data);
  };
}
