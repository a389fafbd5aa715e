import { ClosedError } from '../errors.js';

/**
 * The engine's calls in flight: what `idle()` waits for, what `close()` gives
 * until its deadline, and what keeps the index snapshot from being saved
 * mid-write. After `stop()`, new calls are refused with a ClosedError.
 */
export class CallTracker {
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;
  /** When the last tracked call settled (performance.now()). */
  private lastSettled = -Infinity;
  /** Public calls (`run`) in flight, and when the last one settled: background work tracked with `track` is not a call. */
  private calls = 0;
  private lastCallSettled = -Infinity;

  get size(): number {
    return this.inFlight.size;
  }

  get closed(): boolean {
    return this.stopped;
  }

  /** Whether no call is in flight and none settled in the last `ms` milliseconds. */
  quietFor(ms: number): boolean {
    return this.inFlight.size === 0 && performance.now() - this.lastSettled >= ms;
  }

  /** Whether no public call is in flight and none settled in the last `ms` milliseconds, whatever background work runs. */
  callsPausedFor(ms: number): boolean {
    return this.calls === 0 && performance.now() - this.lastCallSettled >= ms;
  }

  /** Runs a public call (refused once stopped) and tracks it until it settles. */
  run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new ClosedError(operation));
    this.calls++;
    const call = this.track(body());
    const ended = () => {
      this.calls--;
      this.lastCallSettled = performance.now();
    };
    call.then(ended, ended);
    return call;
  }

  /** Tracks background work a call started (it must finish before close). */
  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const forget = () => {
      this.inFlight.delete(work);
      this.lastSettled = performance.now();
    };
    work.then(forget, forget);
    return work;
  }

  stop(): void {
    this.stopped = true;
  }

  /** Resolves when every call tracked now has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
