import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { ProviderError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { withDescriptor } from './descriptor.js';
import { DEFAULT_MAX_RESPONSE_BYTES, networkFailure, readJson, redact } from './http-errors.js';
import type { LLMProvider, LLMRequest, LLMResponse } from './types.js';
import { lazySchema } from '../schema/lazy-schema.js';

export const openAICompatibleOptionsSchema = lazySchema(() => z.strictObject({
  /** e.g. `https://api.openai.com/v1` or a local server's `http://127.0.0.1:8080/v1`. */
  baseURL: z.url(),
  /** Sent as `Authorization: Bearer …` to `baseURL` only. Keep keys off the page: use `httpProxy` in browsers. */
  apiKey: z.optional(z.string().check(z.minLength(1))),
  model: z.string().check(z.minLength(1)),
  headers: z.optional(z.record(z.string(), z.string())),
  /** USD per million tokens; with them every response reports `costUsd`, and `maxCostUsd` caps `max_tokens`. */
  prices: z.optional(z.strictObject({ inputPerMTok: z.number().check(z.gte(0)), outputPerMTok: z.number().check(z.gte(0)) })),
  /** Largest reply body read, in bytes (default 4 MiB); a bigger reply is a ProviderError (`too_large`). */
  maxResponseBytes: z.optional(z.number().check(z.int(), z.gte(1024), z.lte(1024 * 1024 * 1024))),
}));
/**
 * Options of `openAICompatible`: the API's base URL, key and model, extra headers, prices for `costUsd`, and the largest reply it reads.
 * @interface
 */
export type OpenAICompatibleOptions = z.input<typeof openAICompatibleOptionsSchema>;

const completionSchema = lazySchema(() => z.object({
  choices: z.array(z.object({ message: z.object({ content: z.optional(z.nullable(z.string())) }) })).check(z.minLength(1)),
  usage: z.optional(z.object({ prompt_tokens: z.optional(z.number()), completion_tokens: z.optional(z.number()) })),
}));

/**
 * An OpenAI-compatible chat-completions provider (OpenAI, Azure, vLLM,
 * llama.cpp server, Ollama, LM Studio, ...). Asks for structured output with
 * the request's JSON Schema and parses the reply's content as JSON.
 */
export function openAICompatible(options: OpenAICompatibleOptions): LLMProvider {
  const opts = parseInput(openAICompatibleOptionsSchema, options, 'openAICompatible');
  const url = `${opts.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const what = `The LLM at ${new URL(url).host}`;

  const provider: LLMProvider = async (request: LLMRequest): Promise<LLMResponse> => {
    const body: Record<string, unknown> = {
      model: request.model ?? opts.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.input },
      ],
      response_format: { type: 'json_schema', json_schema: { name: request.task.replace(/[^a-zA-Z0-9_-]/g, '_'), schema: request.schema, strict: false } },
    };
    const maxTokens = budgetTokens(request, opts.prices);
    if (maxTokens !== undefined) body.max_tokens = maxTokens;

    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...opts.headers, ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: request.signal,
      });
    } catch (error) {
      throw networkFailure(error, request.signal, what);
    }
    let payload: unknown;
    try {
      payload = await readJson(response, what, opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    } catch (error) {
      if (request.signal.aborted) throw networkFailure(error, request.signal, what);
      if ((error as ProviderError).details?.reason === 'too_large') throw error;
      if (!response.ok) throw new ProviderError(`${what} answered HTTP ${response.status}.`, { reason: 'http', status: response.status });
      throw error;
    }
    const flagged = (payload as { error?: unknown })?.error;
    if (flagged) {
      const message = typeof flagged === 'object' ? String((flagged as { message?: unknown }).message ?? JSON.stringify(flagged)) : String(flagged);
      throw new ProviderError(`${what} reported an error: ${redact(message, [opts.apiKey, ...Object.values(opts.headers ?? {})]).slice(0, 500)}`, { reason: response.ok ? 'error_flag' : 'http', status: response.status });
    }
    if (!response.ok) throw new ProviderError(`${what} answered HTTP ${response.status}.`, { reason: 'http', status: response.status });

    const parsed = safeParse(completionSchema, payload);
    if (!parsed.success) throw new ProviderError(`${what} answered without a chat completion.`, { reason: 'parse' });
    const content = parsed.data.choices[0]!.message.content ?? '';
    let output: unknown;
    try {
      output = JSON.parse(stripFences(content));
    } catch {
      throw new ProviderError(`${what} replied with content that is not JSON.`, { reason: 'parse' });
    }
    const usage = { inputTokens: parsed.data.usage?.prompt_tokens, outputTokens: parsed.data.usage?.completion_tokens };
    const costUsd = opts.prices && parsed.data.usage ? costOf(usage, opts.prices) : undefined;
    return { output, usage, ...(costUsd !== undefined ? { costUsd } : {}) };
  };
  return withDescriptor(provider, { kind: 'openai-compatible', options: opts });
}

/** Some servers wrap JSON in a markdown fence even in JSON mode. */
function stripFences(content: string): string {
  const match = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return match ? match[1]! : content;
}

export function costOf(usage: { inputTokens?: number; outputTokens?: number }, prices: { inputPerMTok: number; outputPerMTok: number }): number {
  return ((usage.inputTokens ?? 0) * prices.inputPerMTok + (usage.outputTokens ?? 0) * prices.outputPerMTok) / 1_000_000;
}

/**
 * With prices and a budget, the output may not cost more than what the input
 * leaves. Input tokens are estimated at 4 characters each (a deliberate
 * over-count for English).
 */
function budgetTokens(request: LLMRequest, prices: { inputPerMTok: number; outputPerMTok: number } | undefined): number | undefined {
  if (!prices || request.maxCostUsd === undefined || prices.outputPerMTok <= 0) return undefined;
  const inputTokens = Math.ceil((request.system.length + request.input.length + JSON.stringify(request.schema).length) / 4);
  const left = request.maxCostUsd - (inputTokens * prices.inputPerMTok) / 1_000_000;
  return Math.max(1, Math.floor((left * 1_000_000) / prices.outputPerMTok));
}
