import { ProviderError } from '../errors.js';

/** Reads a fetch failure into a ProviderError with a `reason` engram's failure rules understand. */
export function networkFailure(error: unknown, signal: AbortSignal, what: string): ProviderError {
  if (signal.aborted) {
    const reason = signal.reason as { details?: { reason?: string } } | undefined;
    return new ProviderError(`${what} was aborted${reason instanceof Error ? `: ${reason.message}` : ''}.`, {
      reason: reason?.details?.reason === 'timeout' || (reason as Error)?.name === 'TimeoutError' ? 'timeout' : 'aborted',
    });
  }
  return new ProviderError(`${what} failed: ${(error as Error)?.message ?? String(error)}`, { reason: 'network' });
}

/** Reads a JSON body, or throws a parse ProviderError. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`${what} answered with a body that is not JSON (HTTP ${response.status}).`, { reason: 'parse', status: response.status });
  }
}

/** Removes a secret from any text that may be shown or sent on. */
export function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}
