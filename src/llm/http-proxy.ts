import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { ProviderError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { withDescriptor } from './descriptor.js';
import { DEFAULT_MAX_RESPONSE_BYTES, networkFailure, readJson } from './http-errors.js';
import type { LLMProvider, LLMResponse } from './types.js';
import { lazySchema } from '../schema/lazy-schema.js';

export const httpProxyOptionsSchema = lazySchema(() => z.strictObject({
  /** The app's own endpoint, served with `createProxyHandler` from `engram/server`. */
  url: z.url(),
  /** e.g. the app's session cookie or CSRF header; never an LLM key. */
  headers: z.optional(z.record(z.string(), z.string())),
  /** Largest reply body read, in bytes (default 4 MiB); a bigger reply is a ProviderError (`too_large`). */
  maxResponseBytes: z.optional(z.number().check(z.int(), z.gte(1024), z.lte(1024 * 1024 * 1024))),
}));
/**
 * Options of `httpProxy`: your server's URL, headers to send with each request, and the largest reply it reads.
 * @interface
 */
export type HttpProxyOptions = z.input<typeof httpProxyOptionsSchema>;

const responseSchema = lazySchema(() => z.object({
  output: z.unknown(),
  costUsd: z.optional(z.number()),
  usage: z.optional(z.object({ inputTokens: z.optional(z.number()), outputTokens: z.optional(z.number()) })),
}));

/**
 * Sends each request (minus its AbortSignal) to the app's own server, which
 * holds the LLM key and forwards it upstream (see `createProxyHandler`).
 * Nothing but the request itself leaves the page.
 */
export function httpProxy(options: HttpProxyOptions): LLMProvider {
  const opts = parseInput(httpProxyOptionsSchema, options, 'httpProxy');
  const what = `The proxy at ${opts.url}`;
  const provider: LLMProvider = async ({ signal, ...request }): Promise<LLMResponse> => {
    let response: Response;
    try {
      response = await fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...opts.headers },
        body: JSON.stringify(request),
        signal,
        credentials: 'same-origin',
      });
    } catch (error) {
      throw networkFailure(error, signal, what);
    }
    const payload = await readJson(response, what, opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES).catch((error: unknown) => {
      if (signal?.aborted) throw networkFailure(error, signal, what);
      throw error;
    });
    const failure = (payload as { error?: { message?: string; reason?: string } })?.error;
    if (!response.ok || failure) {
      throw new ProviderError(`${what} failed: ${failure?.message ?? `HTTP ${response.status}`}`, {
        reason: failure?.reason ?? 'http',
        status: response.status,
      });
    }
    const parsed = safeParse(responseSchema, payload);
    if (!parsed.success) throw new ProviderError(`${what} answered with something that is not an LLM response.`, { reason: 'parse' });
    return parsed.data as LLMResponse;
  };
  return withDescriptor(provider, { kind: 'http-proxy', options: opts });
}
