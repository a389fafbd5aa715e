import { AbortError } from '../errors.js';

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential
 * Backoff And Jitter"): attempt n waits a random time up to
 * min(maxMs, initialMs * 2^n), so devices that lost the hub at the same
 * moment do not all come back at the same moment. A hub's `Retry-After`
 * (seconds) is honoured when larger, up to `maxMs`.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };

export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** attempt);
  const jittered = Math.floor(random() * ceiling);
  return Math.min(policy.maxMs, Math.max(jittered, retryAfterMs ?? 0));
}

/** A `Retry-After` header (delta-seconds form) in milliseconds, or undefined. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}

/** Waits `ms`, or rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError(operation));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError(operation));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
