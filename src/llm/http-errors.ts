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

/** Largest reply body read from an LLM endpoint by default (4 MiB): far above any real structured reply. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * Reads a body, stopping (and cancelling the download) as soon as it passes
 * `maxBytes`: a runaway or hostile server cannot make engram buffer a huge
 * reply. Throws a ProviderError with reason `too_large`.
 */
export async function readCapped(response: Response, what: string, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooLarge = () =>
    new ProviderError(`${what} sent a reply over the ${maxBytes.toLocaleString('en-US')}-byte limit; it was not read.`, { reason: 'too_large', status: response.status, limit: maxBytes });
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Reads a JSON body (at most `maxBytes`), or throws a parse (or too_large) ProviderError. */
export async function readJson(response: Response, what: string, maxBytes = DEFAULT_MAX_RESPONSE_BYTES): Promise<unknown> {
  const text = await readCapped(response, what, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`${what} answered with a body that is not JSON (HTTP ${response.status}).`, { reason: 'parse', status: response.status });
  }
}

/** Removes a secret from any text that may be shown or sent on. */
/**
 * Removes every secret from a text that may travel back to a client or into
 * a log (an upstream error body can echo the request's headers). Secrets
 * shorter than 4 characters are left alone: they would redact ordinary words.
 */
export function redact(text: string, secrets: string | readonly (string | undefined)[] | undefined): string {
  const list = (typeof secrets === 'string' ? [secrets] : (secrets ?? [])).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  // Longest first, so a secret that contains another is removed whole.
  return list.sort((a, b) => b.length - a.length).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/**
 * A JSON value with every secret removed from each string in it, object keys
 * included (see `redact`): a reply passed on to a client may echo a key in
 * any field. Redacting the values before serializing them also catches a
 * secret that JSON would escape (a quote or backslash in it).
 */
export function redactValue(value: unknown, secrets: string | readonly (string | undefined)[] | undefined): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key, secrets), redactValue(item, secrets)]));
  }
  return value;
}
