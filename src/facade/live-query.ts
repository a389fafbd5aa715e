import { EngramError, StorageError } from '../errors.js';
import type { ChangeEvent } from '../telemetry/events.js';

/** What a live query holds now. A new object each time it changes (React compares snapshots by identity). */
export interface LiveSnapshot<T> {
  /** The latest answer; undefined until the first run finishes. */
  data: T | undefined;
  /** The latest run's failure (the data of the run before it stays). */
  error: EngramError | undefined;
  /** A run is under way (the first, or one after a change). */
  loading: boolean;
}

/** Ends a subscription: callable (Svelte, React) and with `unsubscribe()` (Observables). */
export interface Unsubscribe {
  (): void;
  unsubscribe(): void;
}

export interface LiveObserver<T> {
  next?(value: LiveSnapshot<T>): void;
  error?(error: unknown): void;
  complete?(): void;
}

/**
 * A query that stays current: it runs when the first subscriber comes, and
 * again whenever a committed change touches its user (in this tab or,
 * through the cross-tab signal, another), until the last one leaves.
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
  ) {
    // Bound, so `useSyncExternalStore(live.subscribe, live.getSnapshot)` works unbound.
    this.subscribe = this.subscribe.bind(this);
    this.getSnapshot = this.getSnapshot.bind(this);
  }

  getSnapshot(): LiveSnapshot<T> {
    return this.snapshot;
  }

  /** Calls `listener` now with the current snapshot and after every change of it; returns how to stop. */
  subscribe(listener: ((value: LiveSnapshot<T>) => void) | LiveObserver<T>): Unsubscribe {
    const next = typeof listener === 'function' ? listener : (value: LiveSnapshot<T>) => listener.next?.(value);
    this.listeners.add(next);
    if (!this.stopListening) this.start();
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

  ['@@observable'](): this {
    return this;
  }

  private start(): void {
    this.stopListening = this.onChange((event) => {
      if (event.userIds.includes(this.userId)) this.refresh();
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
    this.publish({ ...this.snapshot, loading: true });
    void this.run().then(
      (data) => this.settle({ data, error: undefined, loading: false }),
      (error: unknown) => this.settle({ data: this.snapshot.data, error: asEngramError(error), loading: false }),
    );
  }

  private settle(snapshot: LiveSnapshot<T>): void {
    this.running = false;
    if (this.again && this.stopListening) {
      this.again = false;
      this.snapshot = snapshot;
      this.refresh();
      return;
    }
    this.again = false;
    this.publish(snapshot);
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
