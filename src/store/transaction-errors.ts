import { ClosedError, EngramError, QuotaError, StorageError } from '../errors.js';

/** True when IndexedDB refused a write because the origin's storage quota is used up. */
export function isQuotaExceeded(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const name = (e as { name?: string }).name;
    if (name === 'QuotaExceededError') return true;
    e = (e as { inner?: unknown; cause?: unknown }).inner ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Turns whatever IndexedDB/Dexie threw into a typed engram error (typed errors pass through). */
export function toStorageError(error: unknown, operation: string): EngramError {
  // Dexie re-wraps errors thrown inside a transaction whose name matches a
  // DOMException name (our NotFoundError does) as `DexieError { inner }`.
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { inner?: unknown }).inner, depth++) {
    if (e instanceof EngramError) return e;
  }
  // close() ran while this call was still working (its deadline passed): the call ends as a closed memory's does.
  if ((error as { name?: unknown } | null)?.name === 'DatabaseClosedError') return new ClosedError(operation);
  if (isQuotaExceeded(error)) {
    return new QuotaError(`Storage quota exceeded while trying to ${operation}; nothing was written.`, { operation });
  }
  const message = (error as Error)?.message ?? String(error);
  return new StorageError(`IndexedDB failed while trying to ${operation}: ${message}`, {
    operation,
    name: (error as Error)?.name,
  });
}
