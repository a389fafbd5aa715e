import { AbortError, ValidationError } from '../errors.js';
import { reasonOf } from '../jobs/abort-reason.js';
import type { EngineRemote } from '../rpc/engine-remote.js';

/** Options of the calls an app can cancel: `observe`, `recall` (with its own options) and `idle`. */
export interface CallOptions {
  /** Aborting it ends the call with an `AbortError` (code `ABORTED`) before anything is written. */
  signal?: AbortSignal;
}

/**
 * The `signal` option of the cancellable calls (`observe`, `recall`,
 * `idle`). It is taken out of the options before they are validated (an
 * AbortSignal is a host object, not data) and checked on its own.
 */
export function takeSignal<T>(options: T, operation: string): { signal: AbortSignal | undefined; rest: T } {
  if (options === null || typeof options !== 'object' || !('signal' in options)) return { signal: undefined, rest: options };
  // Read once: a getter that changes its answer later cannot swap the signal after this check.
  const { signal, ...rest } = options as T & { signal?: unknown };
  if (signal !== undefined && !(typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal)) {
    throw new ValidationError(`${operation}: \`signal\` must be an AbortSignal (e.g. \`new AbortController().signal\`) or left out.`, [
      { path: 'signal', message: 'Expected an AbortSignal' },
    ]);
  }
  return { signal: signal as AbortSignal | undefined, rest: rest as T };
}

let calls = 0;

/**
 * Runs an engine call the app can cancel. A signal cannot cross the worker
 * boundary, so the call gets an id and an abort is forwarded as
 * `engine.abortCall(id)`; the engine then ends the call with an AbortError
 * before it writes anything. The facade waits for the engine's answer rather
 * than rejecting on its own, so an AbortError always means nothing was
 * written, and a call whose write already committed resolves.
 */
export async function cancellable<T>(engine: Pick<EngineRemote, 'abortCall'>, signal: AbortSignal | undefined, operation: string, call: (callId: string | undefined) => Promise<T>): Promise<T> {
  if (!signal) return call(undefined);
  if (signal.aborted) throw new AbortError(operation, reasonOf(signal));
  const callId = `${operation}#${++calls}`;
  const forward = () => {
    Promise.resolve()
      .then(() => engine.abortCall(callId, reasonOf(signal) ?? 'aborted'))
      .catch(() => undefined); // a closed engine has nothing left to abort
  };
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await call(callId);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
