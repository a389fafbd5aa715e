import * as z from 'zod/mini';
import { AbortError, ProviderError, SyncError, type SyncErrorReason } from '../errors.js';
import { readCapped } from '../llm/http-errors.js';
import { parseInput } from '../schema/parse.js';
import { safeParse } from '../schema/safe-parse.js';
import { backoffDelay, DEFAULT_BACKOFF, retryAfterMs, sleep, type BackoffPolicy } from './backoff.js';
import type { DeviceId } from './device-id.js';
import { hubClientOptionsSchema, type HubClientOptions } from '../schema/hub-client-options.js';
import { hubErrorBodySchema, pullResponseSchema, pushResponseSchema, SYNC_PROTOCOL_VERSION, type PullResponse, type SealedRow } from './protocol.js';

const isFunction = (v: unknown) => typeof v === 'function';
/** Aborts when either does (`AbortSignal.any`, where the platform has it). */
function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
type Headers = Record<string, string>;

export { hubClientOptionsSchema, type HubClientOptions } from '../schema/hub-client-options.js';

export interface PushInput {
  device: DeviceId;
  keyTag: string;
  spaceTag: string;
  /** The device's sealed rows, in sequence order. */
  rows: SealedRow[];
}

export interface HubClient {
  /**
   * Pushes rows in batches, in order. After each batch the hub holds, calls
   * `onBatch(through)` (the device's highest sequence the hub holds), so the
   * caller can stop resending them even if a later batch fails.
   */
  push(input: PushInput, options?: { signal?: AbortSignal; onBatch?: (through: number) => void | Promise<void> }): Promise<{ stored: number; skipped: number; through: number }>;
  /** One batch of rows after `after`: validated as the protocol, not yet opened (open-batch.ts does that). */
  pull(input: { device: DeviceId; after: string; limit?: number }, options?: { signal?: AbortSignal }): Promise<PullResponse>;
}

/** Refusals a hub sends that say what is wrong: passed on with their own reason. */
const PASSED_ON: Record<number, SyncErrorReason> = { 401: 'unauthorized', 403: 'unauthorized', 410: 'expired', 413: 'too_large' };

/**
 * The device side of the sync protocol over `fetch`: works in browsers,
 * workers and Node. Every request is abortable (`signal`), limited in time,
 * and retried with backoff when the failure may pass (network, 5xx, 408,
 * 429); every answer is read within a size limit and validated against the
 * protocol before anything uses it, so a hub answering garbage is a typed
 * SyncError ('malformed'), never an exception from deep inside.
 */
export function createHubClient(options: HubClientOptions): HubClient {
  const opts = parseInput(hubClientOptionsSchema, options, 'createHubClient', { copy: false });
  const base = opts.url.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const retries = opts.retries ?? 5;
  const backoff: BackoffPolicy = opts.backoff ?? DEFAULT_BACKOFF;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxPushRows = opts.maxPushRows ?? 500;
  const maxPushBytes = opts.maxPushBytes ?? 4 * 1024 * 1024;
  const pullLimit = opts.pullLimit ?? 500;
  const maxResponseBytes = opts.maxResponseBytes ?? 16 * 1024 * 1024;
  const wait = opts.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, signal, 'sync'));
  const random = opts.random ?? Math.random;

  const headers = async (): Promise<Headers> => (typeof opts.headers === 'function' ? await opts.headers() : (opts.headers ?? {}));

  /** One request, retried while its failure may pass; resolves with the validated JSON body of a 2xx answer. */
  async function call<S extends z.ZodMiniType>(what: string, url: string, init: RequestInit, schema: S, signal: AbortSignal | undefined): Promise<z.output<S>> {
    let lastFailure: SyncError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (signal?.aborted) throw new AbortError(what);
      if (attempt > 0) await wait(backoffDelay(attempt - 1, backoff, random, lastFailure?.details.retryAfterMs as number | undefined), signal);
      const timeout = AbortSignal.timeout(timeoutMs);
      const attemptSignal = signal ? eitherSignal(signal, timeout) : timeout;
      let response: Response;
      try {
        response = await doFetch(url, { ...init, headers: { ...(init.headers as Headers), ...(await headers()) }, signal: attemptSignal });
      } catch (error) {
        if (signal?.aborted) throw new AbortError(what);
        lastFailure = new SyncError(`${what}: the hub could not be reached (${timeout.aborted ? `no answer within ${timeoutMs} ms` : ((error as Error)?.message ?? String(error))}).`, { reason: 'network', attempts: attempt + 1 });
        continue;
      }
      let text: string;
      try {
        text = await readCapped(response, `The hub's answer to ${what}`, maxResponseBytes);
      } catch (error) {
        if (signal?.aborted) throw new AbortError(what);
        if (error instanceof ProviderError && error.details.reason === 'too_large') {
          throw new SyncError(`${what}: the hub's answer is over ${maxResponseBytes} bytes; it was not read.`, { reason: 'malformed', status: response.status });
        }
        lastFailure = new SyncError(`${what}: the hub's answer was cut off (${(error as Error)?.message ?? String(error)}).`, { reason: 'network', attempts: attempt + 1 });
        continue;
      }
      if (response.ok) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new SyncError(`${what}: the hub answered with a body that is not JSON: it does not speak the sync protocol.`, { reason: 'malformed', status: response.status });
        }
        const parsed = safeParse(schema, body);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new SyncError(`${what}: the hub's answer is not sync protocol ${SYNC_PROTOCOL_VERSION} (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}).`, { reason: 'malformed', status: response.status });
        }
        return parsed.data;
      }
      const refusal = safeParse(hubErrorBodySchema, safeJson(text));
      const hubReason = refusal.success ? refusal.data.error.reason : undefined;
      const hubMessage = refusal.success ? refusal.data.error.message : `HTTP ${response.status}`;
      const status = response.status;
      if (status >= 500 || status === 408 || status === 429) {
        lastFailure = new SyncError(`${what}: the hub failed (HTTP ${status}: ${hubMessage}).`, { reason: 'hub', status, hubReason, attempts: attempt + 1, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) });
        continue;
      }
      const reason: SyncErrorReason =
        status === 409 && (hubReason === 'wrong_key' || hubReason === 'foreign_space') ? hubReason : (PASSED_ON[status] ?? 'hub');
      throw new SyncError(`${what}: the hub refused it (HTTP ${status}: ${hubMessage}).`, { reason, status, hubReason });
    }
    throw new SyncError(`${lastFailure!.message} Gave up after ${retries + 1} attempts.`, { ...lastFailure!.details, reason: lastFailure!.reason });
  }

  return {
    async push(input, pushOptions = {}) {
      const batches = splitRows(input.rows, maxPushRows, maxPushBytes);
      let stored = 0;
      let skipped = 0;
      let through = 0;
      for (const rows of batches) {
        const body = JSON.stringify({ protocol: SYNC_PROTOCOL_VERSION, device: input.device, keyTag: input.keyTag, spaceTag: input.spaceTag, rows });
        const result = await call('sync push', `${base}/push`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, pushResponseSchema, pushOptions.signal);
        const last = rows.at(-1)!.seq;
        if (result.through < last || result.stored + result.skipped !== rows.length) {
          throw new SyncError(`sync push: the hub acknowledged ${result.stored + result.skipped} of ${rows.length} rows, up to sequence ${result.through} of ${last}: it does not speak the sync protocol.`, { reason: 'malformed', through });
        }
        stored += result.stored;
        skipped += result.skipped;
        through = last;
        await pushOptions.onBatch?.(through);
      }
      return { stored, skipped, through };
    },

    async pull(input, pullOptions = {}) {
      const query = new URLSearchParams({ device: input.device, after: input.after, limit: String(input.limit ?? pullLimit) });
      return call('sync pull', `${base}/pull?${query}`, { method: 'GET' }, pullResponseSchema, pullOptions.signal);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Rows cut into requests of at most `maxRows` rows and about `maxBytes` of JSON each (a larger row goes alone). */
function splitRows(rows: SealedRow[], maxRows: number, maxBytes: number): SealedRow[][] {
  const batches: SealedRow[][] = [];
  let current: SealedRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.ciphertext.length + 200;
    if (current.length > 0 && (current.length >= maxRows || bytes + size > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
