import { APICallError, generateText, jsonSchema, NoObjectGeneratedError, Output, type LanguageModel } from 'ai';
import * as z from 'zod/mini';
import { ProviderError } from '../errors.js';
import { networkFailure } from '../llm/http-errors.js';
import { costOf } from '../llm/openai-compatible.js';
import type { LLMProvider, LLMRequest, LLMResponse } from '../llm/types.js';
import { parseInput } from '../schema/parse.js';

const pricesSchema = z.strictObject({ inputPerMTok: z.number().check(z.gte(0)), outputPerMTok: z.number().check(z.gte(0)) });

export const aiSdkProviderOptionsSchema = z.strictObject({
  /** USD per million tokens; with them every response reports `costUsd`, and `maxCostUsd` caps the output tokens. */
  prices: z.optional(pricesSchema),
  /**
   * Retries of a failed model call inside the AI SDK (its default is 2).
   * Default 0: engram already bounds every call with a timeout and a
   * budget, and a failed extraction is simply reported, not lost.
   */
  maxRetries: z.optional(z.number().check(z.int(), z.gte(0), z.lte(10))),
});
/**
 * Options of `aiSdkProvider`: prices for `costUsd`, and the AI SDK's own retries.
 * @interface
 */
export type AiSdkProviderOptions = z.input<typeof aiSdkProviderOptionsSchema>;

/** An AI SDK language model as the AI SDK itself recognises one (a model object, not a gateway id string). */
const modelSchema = z.custom<Exclude<LanguageModel, string>>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { doGenerate?: unknown }).doGenerate === 'function',
  'must be an AI SDK language model (e.g. openai("gpt-4o-mini")), an object with doGenerate',
);

/**
 * Turns an AI SDK language model into an engram `llm`: each request is one
 * `generateText` call with the request's JSON Schema as structured output
 * (`Output.object`, what the AI SDK recommends over the deprecated
 * `generateObject`), aborted with the request's signal.
 *
 *   const memory = await createMemory({ name: 'app', llm: aiSdkProvider(openai('gpt-4o-mini')) });
 *
 * Failures are `ProviderError`s with the `reason` engram's built-in
 * providers use: `aborted` or `timeout`, `http` (with `status`), `parse`
 * (no JSON object in the reply), `network` (anything else). The request's
 * `model` override is ignored: an AI SDK model is an object, not a name.
 */
export function aiSdkProvider(model: LanguageModel, options: AiSdkProviderOptions = {}): LLMProvider {
  const theModel = parseInput(modelSchema, model, 'aiSdkProvider: model', { copy: false });
  const opts = parseInput(aiSdkProviderOptionsSchema, options, 'aiSdkProvider');
  const what = `The AI SDK model ${theModel.provider}/${theModel.modelId}`;

  return async (request: LLMRequest): Promise<LLMResponse> => {
    let result;
    try {
      result = await generateText({
        model: theModel,
        system: request.system,
        prompt: request.input,
        output: Output.object({ schema: jsonSchema(request.schema), name: request.task.replace(/[^a-zA-Z0-9_-]/g, '_') }),
        maxOutputTokens: outputBudget(request, opts.prices),
        maxRetries: opts.maxRetries ?? 0,
        abortSignal: request.signal,
      });
    } catch (error) {
      throw providerFailure(error, request.signal, what);
    }
    const usage = { inputTokens: result.totalUsage.inputTokens, outputTokens: result.totalUsage.outputTokens };
    const costUsd = opts.prices ? costOf(usage, opts.prices) : undefined;
    return { output: result.output, usage, ...(costUsd !== undefined ? { costUsd } : {}) };
  };
}

function providerFailure(error: unknown, signal: AbortSignal, what: string): ProviderError {
  if (signal.aborted) return networkFailure(error, signal, what);
  if (APICallError.isInstance(error)) {
    return new ProviderError(`${what} failed${error.statusCode ? ` with HTTP ${error.statusCode}` : ''}: ${error.message.slice(0, 500)}`, {
      reason: error.statusCode ? 'http' : 'network',
      ...(error.statusCode ? { status: error.statusCode } : {}),
    });
  }
  if (NoObjectGeneratedError.isInstance(error)) {
    return new ProviderError(`${what} replied without a JSON object matching the schema: ${error.message.slice(0, 300)}`, { reason: 'parse' });
  }
  return networkFailure(error, signal, what);
}

/**
 * With prices and a budget, the output may not cost more than what the input
 * leaves. Input tokens are estimated at 4 characters each (a deliberate
 * over-count for English), as `openAICompatible` does.
 */
function outputBudget(request: LLMRequest, prices: z.output<typeof pricesSchema> | undefined): number | undefined {
  if (!prices || request.maxCostUsd === undefined || prices.outputPerMTok <= 0) return undefined;
  const inputTokens = Math.ceil((request.system.length + request.input.length + JSON.stringify(request.schema).length) / 4);
  const left = request.maxCostUsd - (inputTokens * prices.inputPerMTok) / 1_000_000;
  return Math.max(1, Math.floor((left * 1_000_000) / prices.outputPerMTok));
}
