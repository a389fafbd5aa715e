import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { EngramError, ProviderError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { openAICompatible, openAICompatibleOptionsSchema } from './openai-compatible.js';
import { redact, redactValue } from './http-errors.js';
import { readJsonBody, type JsonBodyRefusal } from './request-body.js';

export const proxyHandlerOptionsSchema = z.strictObject({
  /** The OpenAI-compatible upstream, with its key (which stays on the server). */
  upstream: openAICompatibleOptionsSchema,
  /** The most one call may cost, in USD; a request's own `maxCostUsd` can only lower it. */
  maxCostUsd: z.optional(z.number().check(z.gt(0))),
  /** Per-call timeout (default 120000 ms). */
  timeoutMs: z.optional(z.number().check(z.int(), z.gte(100), z.lte(3_600_000))),
  /** Only these tasks are forwarded (default: all). */
  allowedTasks: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** Largest accepted request body in bytes (default 1 MB), enforced while the body streams in. */
  maxBodyBytes: z.optional(z.number().check(z.int(), z.gte(1024))),
  /** The whole request body must arrive within this time (default 10000 ms), or the request gets 408 and is cut off. */
  bodyTimeoutMs: z.optional(z.number().check(z.int(), z.gte(100), z.lte(600_000))),
  /**
   * Models a client may ask for by name (`request.model`). By default the
   * client cannot choose: the upstream's configured model is used, and a
   * request naming another one is refused with 400.
   */
  allowModels: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(200)))),
});
/**
 * Options of `createProxyHandler`: the upstream and its key, and what a client may ask for (models, tasks, budget, body size and time).
 * @interface
 */
export type ProxyHandlerOptions = z.input<typeof proxyHandlerOptionsSchema>;

const requestSchema = z.strictObject({
  task: z.string().check(z.minLength(1), z.maxLength(100)),
  system: z.string().check(z.maxLength(100_000)),
  input: z.string().check(z.maxLength(1_000_000)),
  schema: z.record(z.string(), z.unknown()),
  model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  maxCostUsd: z.optional(z.number().check(z.gt(0))),
});

/**
 * The server half of `httpProxy`: a web-standard `(Request) => Promise<Response>`
 * handler (Node via `toNodeHandler`, Express, Hono, Next route handlers, Deno,
 * Bun). It reads the body within its size and time limits (refusing as it
 * streams, never after buffering it), validates it, forwards to the
 * OpenAI-compatible upstream with the budget and timeout enforced, and never
 * sends back the upstream key or any configured upstream header value: they
 * are redacted from every reply, errors and the upstream's answers alike
 * (each string of the answer's JSON, keys included).
 *
 * What a client may set: `task`, `system`, `input`, `schema`, `maxCostUsd`
 * (it can only lower the server's budget), and `model` only when the server
 * lists it in `allowModels`. The upstream's URL, key and headers are the
 * server's alone.
 */
export function createProxyHandler(options: ProxyHandlerOptions): (request: Request) => Promise<Response> {
  const opts = parseInput(proxyHandlerOptionsSchema, options, 'createProxyHandler');
  const upstream = openAICompatible(opts.upstream);
  const secrets = [opts.upstream.apiKey, ...Object.values(opts.upstream.headers ?? {})];
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const maxBody = opts.maxBodyBytes ?? 1_000_000;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 10_000;

  const fail = (status: number, reason: string, message: string) =>
    Response.json({ error: { reason, message: redact(message, secrets) } }, { status, headers: { 'cache-control': 'no-store' } });
  /** A refused body: its own reason when it was too large or too slow, `otherwise` when it was not what this handler reads. */
  const refuse = (refusal: JsonBodyRefusal, otherwise: string) =>
    fail(refusal.status, refusal.problem === 'too_large' || refusal.problem === 'body_timeout' ? refusal.problem : otherwise, refusal.message);

  return async (request) => {
    if (request.method !== 'POST') return fail(405, 'method', 'Only POST is accepted.');
    const body = await readJsonBody(request, requestSchema, {
      maxBytes: maxBody,
      timeoutMs: bodyTimeoutMs,
      noun: 'request body',
      invalidPrefix: 'Invalid request',
    });
    if ('refused' in body) return refuse(body.refused, 'bad_request');
    const call = body.data;
    if (opts.allowedTasks && !opts.allowedTasks.includes(call.task)) return fail(403, 'task', `The task "${call.task}" is not allowed here.`);
    if (call.model !== undefined && call.model !== opts.upstream.model && !opts.allowModels?.includes(call.model)) {
      return fail(400, 'model', `The model is chosen by the server: "${call.model}" is not in its allowModels.`);
    }
    const budget = [call.maxCostUsd, opts.maxCostUsd].filter((v): v is number => v !== undefined);

    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any ? AbortSignal.any([timeout, request.signal]) : timeout;
    try {
      const result = await upstream({ ...call, maxCostUsd: budget.length ? Math.min(...budget) : undefined, signal });
      if (result.costUsd !== undefined && budget.length && result.costUsd > Math.min(...budget) * 1.0001) {
        return fail(502, 'budget', `The call cost $${result.costUsd.toFixed(4)}, over the $${Math.min(...budget)} budget.`);
      }
      // The reply is the upstream's (a model can be led to repeat its request): every string in it is redacted too.
      return Response.json(redactValue(result, secrets), { headers: { 'cache-control': 'no-store' } });
    } catch (error) {
      if (timeout.aborted) return fail(504, 'timeout', `The upstream did not answer within ${timeoutMs} ms.`);
      const reason = error instanceof EngramError ? String(error.details.reason ?? 'provider') : 'provider';
      const message = error instanceof ProviderError ? error.message : 'The upstream call failed.';
      return fail(502, reason, message);
    }
  };
}
