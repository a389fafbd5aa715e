import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/**
 * The hub client's options (hub-client.ts), apart from the client so that
 * `createMemory({ sync })` can validate them without loading the client.
 */

/** The most rows one push may carry (the hub's default; a hub may set a lower one). */
export const MAX_PUSH_ROWS = 1000;

const isFunction = (v: unknown) => typeof v === 'function';
/** `URL.canParse` is missing from browsers before 2023. */
function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

export const hubClientOptionsSchema = lazySchema(() => z.strictObject({
  /** The hub's base URL: requests go to `<url>/push` and `<url>/pull`. */
  url: z.string().check(z.refine(isHttpUrl, 'must be an http(s) URL')),
  /** Headers for every request (the app's credentials for its `authorize`), or a function giving them (a fresh token each time). */
  headers: z.optional(z.union([z.record(z.string(), z.string()), z.custom<() => Record<string, string> | Promise<Record<string, string>>>(isFunction)])),
  /** The fetch to use (default `globalThis.fetch`). */
  fetch: z.optional(z.custom<typeof fetch>(isFunction, 'must be a fetch function')),
  /** Retries after a network failure, a 5xx, 408 or 429 (default 5). Other refusals are not retried. */
  retries: z.optional(z.number().check(z.int(), z.gte(0), z.lte(20))),
  backoff: z.optional(z.strictObject({ initialMs: z.number().check(z.int(), z.gte(0)), maxMs: z.number().check(z.int(), z.gte(0)) })),
  /** Each attempt's time limit (default 30000 ms). */
  timeoutMs: z.optional(z.number().check(z.int(), z.gte(100))),
  /** Rows per push request (default 500; the hub's own limit is 1000). */
  maxPushRows: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_PUSH_ROWS))),
  /** Bytes per push request, as JSON (default 4 MB; a single larger row is sent alone). */
  maxPushBytes: z.optional(z.number().check(z.int(), z.gte(1024))),
  /** Rows asked for per pull (default 500). */
  pullLimit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000))),
  /** Largest hub answer read (default 16 MB): a hostile or broken hub cannot make the device buffer more. */
  maxResponseBytes: z.optional(z.number().check(z.int(), z.gte(1024))),
  /** Waits between retries (default a timer); injected in tests. */
  sleep: z.optional(z.custom<(ms: number, signal?: AbortSignal) => Promise<void>>(isFunction)),
  /** Jitter source in [0, 1) (default Math.random); injected in tests. */
  random: z.optional(z.custom<() => number>(isFunction)),
}));
/**
 * How a device reaches its hub (`createMemory({ sync: { remote } })`): the URL, the headers that carry the app's credentials, retries, time limits and batch sizes.
 * @interface
 */
export type HubClientOptions = z.input<typeof hubClientOptionsSchema>;
