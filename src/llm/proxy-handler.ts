import { z } from 'zod';
import { EngramError, ProviderError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { openAICompatible, openAICompatibleOptionsSchema } from './openai-compatible.js';
import { redact } from './http-errors.js';

export const proxyHandlerOptionsSchema = z
  .object({
    /** The OpenAI-compatible upstream, with its key (which stays on the server). */
    upstream: openAICompatibleOptionsSchema,
    /** The most one call may cost, in USD; a request's own `maxCostUsd` can only lower it. */
    maxCostUsd: z.number().gt(0).optional(),
    /** Per-call timeout (default 120000 ms). */
    timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
    /** Only these tasks are forwarded (default: all). */
    allowedTasks: z.array(z.string().min(1)).optional(),
    /** Largest accepted request body in bytes (default 1 MB). */
    maxBodyBytes: z.number().int().min(1024).optional(),
  })
  .strict();
export type ProxyHandlerOptions = z.input<typeof proxyHandlerOptionsSchema>;

const requestSchema = z
  .object({
    task: z.string().min(1).max(100),
    system: z.string().max(100_000),
    input: z.string().max(1_000_000),
    schema: z.record(z.string(), z.unknown()),
    model: z.string().min(1).max(200).optional(),
    maxCostUsd: z.number().gt(0).optional(),
  })
  .strict();

/**
 * The server half of `httpProxy`: a web-standard `(Request) => Promise<Response>`
 * handler (Node via `toNodeHandler`, Express, Hono, Next route handlers, Deno,
 * Bun). It validates the body, forwards to the OpenAI-compatible upstream
 * with the budget and timeout enforced, and never echoes the upstream key.
 */
export function createProxyHandler(options: ProxyHandlerOptions): (request: Request) => Promise<Response> {
  const opts = parseInput(proxyHandlerOptionsSchema, options, 'createProxyHandler');
  const upstream = openAICompatible(opts.upstream);
  const key = opts.upstream.apiKey;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const maxBody = opts.maxBodyBytes ?? 1_000_000;

  const fail = (status: number, reason: string, message: string) =>
    Response.json({ error: { reason, message: redact(message, key) } }, { status, headers: { 'cache-control': 'no-store' } });

  return async (request) => {
    if (request.method !== 'POST') return fail(405, 'method', 'Only POST is accepted.');
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > maxBody) return fail(413, 'too_large', `The request body is over ${maxBody} bytes.`);
    let body: unknown;
    try {
      const text = await request.text();
      if (text.length > maxBody) return fail(413, 'too_large', `The request body is over ${maxBody} bytes.`);
      body = JSON.parse(text);
    } catch {
      return fail(400, 'bad_request', 'The request body is not JSON.');
    }
    const parsed = requestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(400, 'bad_request', `Invalid request: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim());
    }
    const call = parsed.data;
    if (opts.allowedTasks && !opts.allowedTasks.includes(call.task)) return fail(403, 'task', `The task "${call.task}" is not allowed here.`);
    const budget = [call.maxCostUsd, opts.maxCostUsd].filter((v): v is number => v !== undefined);

    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any ? AbortSignal.any([timeout, request.signal]) : timeout;
    try {
      const result = await upstream({ ...call, maxCostUsd: budget.length ? Math.min(...budget) : undefined, signal });
      if (result.costUsd !== undefined && budget.length && result.costUsd > Math.min(...budget) * 1.0001) {
        return fail(502, 'budget', `The call cost $${result.costUsd.toFixed(4)}, over the $${Math.min(...budget)} budget.`);
      }
      return Response.json(result, { headers: { 'cache-control': 'no-store' } });
    } catch (error) {
      if (timeout.aborted) return fail(504, 'timeout', `The upstream did not answer within ${timeoutMs} ms.`);
      const reason = error instanceof EngramError ? String(error.details.reason ?? 'provider') : 'provider';
      const message = error instanceof ProviderError ? error.message : 'The upstream call failed.';
      return fail(502, reason, message);
    }
  };
}
