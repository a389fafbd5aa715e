import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { ProviderError } from '../errors.js';
import type { LLMProvider } from './types.js';

/** The JSON Schema sent to the provider (structured output). */
export function jsonSchemaOf(schema: z.ZodMiniType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** Why an LLM call produced nothing usable. */
export type CallFailure = 'timeout' | 'provider_error' | 'parse_error' | 'error_flag';

export type CallResult<T> =
  | { ok: true; value: T; costUsd: number }
  | { ok: false; failure: CallFailure; reason: string; costUsd: number };

export interface CallSpec<S extends z.ZodMiniType> {
  task: string;
  system: string;
  input: string;
  schema: S;
  model?: string;
  maxCostUsd?: number;
  timeoutMs: number;
  /** Aborts the call early (e.g. engram is closing). */
  signal?: AbortSignal;
}

/**
 * One LLM call with engram's failure rules: a timeout (enforced here even if
 * the provider ignores its signal), a provider error, a reply that is not a
 * JSON object, an `error` flag in the reply, or a reply that does not match
 * the schema all come back as a typed failure with a reason. Never throws.
 */
export async function callLLM<S extends z.ZodMiniType>(provider: LLMProvider, spec: CallSpec<S>): Promise<CallResult<z.output<S>>> {
  const controller = new AbortController();
  // The timeout and the caller's signal (close()) end the call here even if the provider ignores its own signal.
  let stop!: (error: ProviderError) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  const onAbort = () => {
    controller.abort(spec.signal?.reason);
    // The signal is the engine closing or the app's own abort (observe's `signal`); its reason says which.
    const why = spec.signal?.reason instanceof Error ? spec.signal.reason.message : 'engram is closing';
    stop(new ProviderError(`The ${spec.task} call was cancelled: ${why}.`, { reason: 'cancelled' }));
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    const error = new ProviderError(`The ${spec.task} call timed out after ${spec.timeoutMs} ms.`, { reason: 'timeout' });
    controller.abort(error);
    stop(error);
  }, spec.timeoutMs);
  let costUsd = 0;
  try {
    const response = await Promise.race([
      provider({
        task: spec.task,
        system: spec.system,
        input: spec.input,
        schema: jsonSchemaOf(spec.schema),
        model: spec.model,
        maxCostUsd: spec.maxCostUsd,
        signal: controller.signal,
      }),
      stopped,
    ]);
    costUsd = typeof response?.costUsd === 'number' && Number.isFinite(response.costUsd) ? response.costUsd : 0;
    const output = response?.output;
    if (typeof output !== 'object' || output === null || Array.isArray(output)) {
      return { ok: false, failure: 'parse_error', reason: `the ${spec.task} reply is not a JSON object`, costUsd };
    }
    const flag = (output as { error?: unknown }).error;
    if (flag !== undefined && flag !== null && flag !== false) {
      return { ok: false, failure: 'error_flag', reason: `the ${spec.task} reply carries an error flag: ${String(typeof flag === 'object' ? JSON.stringify(flag) : flag).slice(0, 200)}`, costUsd };
    }
    const parsed = safeParse(spec.schema, output);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, failure: 'parse_error', reason: `the ${spec.task} reply does not match its schema: ${issue?.path.join('.') || 'value'} ${issue?.message ?? ''}`.trim(), costUsd };
    }
    return { ok: true, value: parsed.data, costUsd };
  } catch (error) {
    if (spec.signal?.aborted) return { ok: false, failure: 'provider_error', reason: 'cancelled', costUsd };
    const reason = error instanceof ProviderError ? error.details?.reason : undefined;
    const message = describeThrown(error);
    if (reason === 'timeout' || controller.signal.aborted) return { ok: false, failure: 'timeout', reason: message, costUsd };
    if (reason === 'parse') return { ok: false, failure: 'parse_error', reason: message, costUsd };
    return { ok: false, failure: 'provider_error', reason: message, costUsd };
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * What a provider threw, as text, whatever it threw: an object whose
 * `message` getter or `toString` throws must not turn a handled provider
 * failure into an untyped error.
 */
export function describeThrown(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // fall through
  }
  try {
    return String(error);
  } catch {
    return 'the provider threw a value that cannot be described';
  }
}
