import * as z from 'zod/mini';
import { EngramError, StorageError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import type { ChangeEvent, ChangeTable } from '../telemetry/events.js';
import { replaceEqualDeep } from './replace-equal-deep.js';
import { lazySchema } from '../schema/lazy-schema.js';

/** What a live query holds now. A new object each time it changes (React compares snapshots by identity). */
export interface LiveSnapshot<T> {
  /** The latest answer; undefined until the first run finishes. */
  data: T | undefined;
  /** The latest run's failure (the data of the run before it stays). */
  error: EngramError | undefined;
  /**
   * The first answer is under way. Re-runs after a change do not flip it: the
   * snapshot changes only when the answer (or its error) does.
   */
  loading: boolean;
}

/** Ends a subscription: callable (Svelte, React) and with `unsubscribe()` (Observables). */
export interface Unsubscribe {
  (): void;
  /** Ends the subscription (the same as calling it). */
  unsubscribe(): void;
}

/** An Observable-style observer for `live.subscribe({ next, error, complete })`. */
export interface LiveObserver<T> {
  /** Called with each new snapshot. */
  next?(value: LiveSnapshot<T>): void;
  /** Accepted for Observable compatibility and not called: a failed run arrives through `next`, as the snapshot's `error`. */
  error?(error: unknown): void;
  /** Accepted for Observable compatibility and not called: a live query runs until it is unsubscribed. */
  complete?(): void;
}

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'must be a function');
/** A listener function, or an Observable's observer (its methods each optional). */
const listenerSchema = lazySchema(() => z.union([
  fn,
  // Loose: an Observable library's subscriber carries fields of its own.
  z.looseObject({ next: z.optional(fn), error: z.optional(fn), complete: z.optional(fn) }),
]));

/**
 * A query that stays current: it runs when the first subscriber comes, and
 * again whenever a committed change touches its user and one of its tables
 * (in this tab or, through the cross-tab signal, another), until the last
 * one leaves. A re-run whose answer deep-equals the last one emits nothing
 * and keeps the snapshot; a changed answer keeps the identity of its
 * unchanged parts (./replace-equal-deep.ts).
 *
 * One object fits the three common contracts: React's
 * `useSyncExternalStore(live.subscribe, live.getSnapshot)`, a Svelte store
 * (`subscribe` calls the listener at once with the current snapshot), and an
 * Observable (`live[Symbol.observable]()`, or `subscribe({ next })`).
 */
export class LiveQuery<T> {
  private snapshot: LiveSnapshot<T> = { data: undefined, error: undefined, loading: false };
  private readonly listeners = new Set<(value: LiveSnapshot<T>) => void>();
  private stopListening: (() => void) | null = null;
  private running = false;
  private again = false;

  /** @internal created by `memory.live()` */
  constructor(
    private readonly run: () => Promise<T>,
    private readonly userId: string,
    private readonly onChange: (listener: (event: ChangeEvent) => void) => () => void,
    /** The tables whose changes can change the answer; every table when absent. */
    private readonly tables?: readonly ChangeTable[],
  ) {
    // Bound, so `useSyncExternalStore(live.subscribe, live.getSnapshot)` works unbound.
    this.subscribe = this.subscribe.bind(this);
    this.getSnapshot = this.getSnapshot.bind(this);
  }

  /** The current snapshot: `{ data, error, loading }` (for React's `useSyncExternalStore`). */
  getSnapshot(): LiveSnapshot<T> {
    return this.snapshot;
  }

  /**
   * Calls `listener` now with the current snapshot and after every change of
   * it; returns how to stop. A listener that is neither a function nor an
   * observer (`{ next?, error?, complete? }`) is a ValidationError, and
   * nothing is subscribed.
   */
  subscribe(listener: ((value: LiveSnapshot<T>) => void) | LiveObserver<T>): Unsubscribe {
    const next = listenerOf(listener);
    // Started before the listener joins, so the first "loading" snapshot reaches it once (below), not twice.
    if (!this.stopListening) this.start();
    this.listeners.add(next);
    next(this.snapshot);
    const stop = (() => {
      if (!this.listeners.delete(next)) return;
      if (this.listeners.size === 0) this.stop();
    }) as Unsubscribe;
    stop.unsubscribe = stop;
    return stop;
  }

  /**
   * The Observable interop point. RxJS `from(live)` looks up
   * `Symbol.observable` when a polyfill defined it and the string
   * `'@@observable'` otherwise; others use `Symbol.for('observable')`.
   */
  [Symbol.for('observable')](): this {
    return this;
  }

  /** The Observable interop point under its string name (see `Symbol.for('observable')`). */
  ['@@observable'](): this {
    return this;
  }

  private start(): void {
    this.stopListening = this.onChange((event) => {
      if (!event.userIds.includes(this.userId)) return;
      if (this.tables && !event.tables.some((table) => this.tables!.includes(table))) return;
      this.refresh();
    });
    this.refresh();
  }

  private stop(): void {
    this.stopListening?.();
    this.stopListening = null;
  }

  /** Runs the query, or (while one runs) once more after it: changes during a run are never missed. */
  private refresh(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    // Only the first answer is awaited visibly; a re-run shows the last answer until a different one arrives.
    if (this.snapshot.data === undefined && this.snapshot.error === undefined) this.publish({ ...this.snapshot, loading: true });
    void this.run().then(
      (data) => this.settle(data, undefined),
      (error: unknown) => this.settle(this.snapshot.data, asEngramError(error)),
    );
  }

  private settle(result: T | undefined, failure: EngramError | undefined): void {
    this.running = false;
    const previous = this.snapshot;
    const data = replaceEqualDeep(previous.data, result);
    // The same failure again (same code and message) is not news either.
    const error = failure && previous.error && failure.code === previous.error.code && failure.message === previous.error.message ? previous.error : failure;
    const rerun = this.again && this.stopListening !== null;
    this.again = false;
    if (data !== previous.data || error !== previous.error || previous.loading) this.publish({ data, error, loading: false });
    if (rerun) this.refresh();
  }

  private publish(snapshot: LiveSnapshot<T>): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        // One subscriber's bug must not stop the others from hearing.
        console.error('engram: a live query subscriber threw', error);
      }
    }
  }
}

/**
 * The function to call with each snapshot. An observer's methods are called
 * on the observer itself (RxJS subscribers use `this`).
 */
function listenerOf<T>(listener: unknown): (value: LiveSnapshot<T>) => void {
  const parsed = parseInput(listenerSchema, listener, 'live().subscribe: listener', { copy: false }) as ((value: LiveSnapshot<T>) => void) | LiveObserver<T>;
  return typeof parsed === 'function' ? parsed : (value) => parsed.next?.call(listener, value);
}

function asEngramError(error: unknown): EngramError {
  if (error instanceof EngramError) return error;
  return new StorageError(`A live query failed: ${(error as Error)?.message ?? String(error)}`, {});
}

// Where a polyfill has defined `Symbol.observable`, the same interop point answers under it too.
const observableSymbol = (Symbol as { observable?: symbol }).observable;
if (typeof observableSymbol === 'symbol' && observableSymbol !== Symbol.for('observable')) {
  Object.defineProperty(LiveQuery.prototype, observableSymbol, {
    value(this: LiveQuery<unknown>) {
      return this;
    },
  });
}
