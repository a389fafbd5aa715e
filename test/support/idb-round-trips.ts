import { IDBIndex, IDBObjectStore } from 'fake-indexeddb';

/** One request a transaction made, and the round trip it went in. */
export interface IssuedRequest {
  /** The transaction, numbered in the order of their first request. */
  tx: number;
  store: string;
  method: string;
  /** The key a get or delete names, or a put's or add's explicit key or `key` field (the inline key of `meta`). */
  key?: unknown;
  /**
   * The round trip it went in, counted per transaction from 1: a request
   * issued while another of its transaction is still unanswered goes with
   * it (the backend runs them in order, the caller waits once); one issued
   * when none is pending waited for the previous answer, so starts the next.
   */
  trip: number;
}

const METHODS = ['add', 'put', 'get', 'getAll', 'getAllKeys', 'getKey', 'delete', 'clear', 'count', 'openCursor', 'openKeyCursor'] as const;

/** Every request on fake-indexeddb's object stores and indexes while `run` runs (the prototypes are wrapped for that long). */
export async function recordRequests(run: () => Promise<unknown>): Promise<IssuedRequest[]> {
  const issued: IssuedRequest[] = [];
  const state = new Map<object, { tx: number; pending: number; trip: number }>();
  const restore: (() => void)[] = [];
  for (const proto of [IDBObjectStore.prototype, IDBIndex.prototype] as unknown as Record<string, unknown>[]) {
    for (const method of METHODS) {
      const original = proto[method] as ((...args: unknown[]) => IDBRequest) | undefined;
      if (!original) continue;
      proto[method] = function (this: IDBObjectStore | IDBIndex, ...args: unknown[]) {
        const store = 'objectStore' in this ? this.objectStore : this;
        const transaction = store.transaction;
        let s = state.get(transaction);
        if (!s) state.set(transaction, (s = { tx: state.size + 1, pending: 0, trip: 0 }));
        if (s.pending === 0) s.trip++;
        s.pending++;
        const key = method === 'put' || method === 'add' ? (args[1] ?? (args[0] as { key?: unknown } | undefined)?.key) : args[0];
        issued.push({ tx: s.tx, store: store.name, method, key, trip: s.trip });
        const request = original.apply(this, args);
        const answered = () => void s.pending--;
        request.addEventListener('success', answered, { once: true });
        request.addEventListener('error', answered, { once: true });
        return request;
      };
      restore.push(() => (proto[method] = original));
    }
  }
  try {
    await run();
  } finally {
    for (const undo of restore) undo();
  }
  return issued;
}
