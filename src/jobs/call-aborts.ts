import { AbortError } from '../errors.js';
import { reasonOf } from './abort-reason.js';

/**
 * The caller's AbortSignals, by call id. A signal cannot cross the worker
 * boundary (it is not cloneable), so the facade names each cancellable call
 * with an id and, when the app's signal fires, asks the engine to abort that
 * id; in-process the same path is used, so both modes behave alike.
 */
export class CallAborts {
  private readonly live = new Map<string, AbortController>();

  /** The signal of call `id` (none without an id), released when `body` settles. */
  async with<T>(id: string | undefined, body: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (id === undefined) return body(undefined);
    const controller = new AbortController();
    this.live.set(id, controller);
    try {
      return await body(controller.signal);
    } finally {
      this.live.delete(id);
    }
  }

  /** Aborts call `id` if it is still running (a late abort, after the call settled, does nothing). */
  abort(id: string, reason: string): void {
    this.live.get(id)?.abort(new Error(reason));
  }
}

/** Throws the typed AbortError when the caller's signal has fired: call it before each step that writes. */
export function throwIfCallerAborted(signal: AbortSignal | undefined, operation: string): void {
  if (signal?.aborted) throw new AbortError(operation, reasonOf(signal));
}

/** `work`, or the typed AbortError as soon as `signal` fires, whichever comes first (the listener is removed after). */
export async function raceCallerAbort<T>(signal: AbortSignal | undefined, operation: string, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  let fire!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    fire = () => reject(new AbortError(operation, reasonOf(signal)));
  });
  if (signal.aborted) fire();
  else signal.addEventListener('abort', fire, { once: true });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', fire);
  }
}
