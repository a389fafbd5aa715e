import { AbortError, EngramError, SyncError, ValidationError } from '../errors.js';
import { forward } from '../facade/forward.js';
import { acknowledgeSyncChanges, applySyncBatch, countSyncChanges, enableSync, loadSyncPullState, pendingSyncChanges } from '../operations/sync.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import { parseInput } from '../schema/parse.js';
import type { Emitter } from '../telemetry/emitter.js';
import { backoffDelay, DEFAULT_BACKOFF, sleep } from './backoff.js';
import { createHubClient, type HubClient } from './hub-client.js';
import type { LocalReplica } from './local-replica.js';
import { createSyncKey, type SyncKey } from './sync-key.js';
import { syncOptionsSchema, type ParsedSyncOptions, type SyncOptions, type SyncStatus } from './sync-options.js';
import { syncRound, type SyncRoundResult } from './sync-round.js';

const DEFAULT_INTERVAL_MS = 5000;
/** Refusals no retry can mend: the app must give another key or space, or the device must rejoin. */
const NEEDS_THE_APP: ReadonlySet<string> = new Set(['wrong_key', 'foreign_space', 'expired', 'unauthorized']);

interface WebLocks {
  request<T>(name: string, options: { signal?: AbortSignal; ifAvailable?: boolean }, run: (lock: unknown) => Promise<T>): Promise<T>;
}
/** Web Locks where the platform has them (browsers, workers); Node has no tabs (and one process per durable store). */
function webLocks(): WebLocks | undefined {
  return (globalThis as { navigator?: { locks?: WebLocks } }).navigator?.locks;
}

/**
 * `memory.sync`: drives sync rounds (sync-round.ts) for one memory, on the
 * page side of the engine (the key, the hub client and the transport stay
 * here; the engine does the replica's reads and writes through its
 * operations, in-process or in a worker alike).
 *
 * One tab of a profile syncs at a time: the background loop runs while its
 * tab holds the Web Lock `engram-sync:<name>` (the others are 'standby',
 * and see its writes through the cross-tab feed), and each round, also
 * `now()`'s, holds `engram-sync-round:<name>`, so rounds never overlap.
 */
export class MemorySync {
  private options: ParsedSyncOptions | undefined;
  private key: Promise<SyncKey> | undefined;
  private client: HubClient | undefined;
  private device: string | null = null;
  private loop: Promise<void> | undefined;
  private stopping: AbortController | undefined;
  private wake: (() => void) | undefined;
  private rounds: Promise<unknown> = Promise.resolve();
  private current: SyncStatus = { state: 'stopped', device: null, pending: 0, lastSyncedAt: null, lastError: null };
  private counting = false;
  private stopListening: (() => void) | undefined;

  /** @internal made by `Memory` */
  constructor(
    private readonly engine: EngineRemote,
    private readonly emitter: Emitter,
    private readonly storeName: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Where sync is now (see `SyncStatus`); the `sync` event carries each change of it. */
  get status(): SyncStatus {
    return this.current;
  }

  /** @internal validates the options (on a copy of their data) without starting. */
  configure(options: SyncOptions): void {
    const parsed = parseInput(syncOptionsSchema, options, 'sync', { copy: false }) as ParsedSyncOptions;
    if (this.loop) throw new ValidationError('sync.start: sync is running with other options; stop it first.', [{ path: '', message: 'already started' }]);
    this.options = parsed;
    this.key = undefined;
    this.client = undefined;
  }

  /**
   * Starts syncing in the background: a round now, then one every
   * `intervalMs` and soon after each local write. The first start on a
   * store gives it a device id and queues every stored record for the hub.
   * Resolves once sync is set up (not after the first round: see `now()`).
   */
  async start(options?: SyncOptions): Promise<void> {
    if (options !== undefined) this.configure(options);
    if (!this.options) throw new ValidationError('sync.start: no hub and key: pass them here or as createMemory({ sync }).', [{ path: '', message: 'options required' }]);
    if (this.loop) return;
    await this.prepare();
    const stopping = (this.stopping = new AbortController());
    this.stopListening = this.emitter.on('change', () => this.localChange());
    this.loop = this.run(stopping.signal).finally(() => {
      this.loop = undefined;
      this.stopListening?.();
    });
  }

  /** Stops the background loop (a round under way is aborted; what it applied stays applied). */
  async stop(): Promise<void> {
    this.stopping?.abort();
    this.wake?.();
    await this.loop;
    this.setStatus({ state: 'stopped' });
  }

  /** One round now (push everything pending, pull until the hub has nothing more); rejects with the round's typed error. */
  async now(options: { signal?: AbortSignal } = {}): Promise<SyncRoundResult> {
    if (!this.options) throw new ValidationError('sync.now: no hub and key: pass them to createMemory({ sync }) or sync.start(options).', [{ path: '', message: 'options required' }]);
    await this.prepare();
    return this.round(options.signal);
  }

  /** Makes the key and the client, and turns capture on in the store (once). */
  private async prepare(): Promise<void> {
    const options = this.options!;
    this.key ??= createSyncKey(options.key);
    this.client ??= createHubClient(typeof options.remote === 'string' ? { url: options.remote } : options.remote);
    if (!this.device) {
      const { device } = await forward(this.engine, enableSync, []);
      this.device = device;
      this.setStatus({ device });
    }
    await this.key;
  }

  /** One round, after any this tab is running, under the profile's round lock. */
  private round(signal: AbortSignal | undefined): Promise<SyncRoundResult> {
    const run = async () => {
      this.setStatus({ state: 'syncing' });
      try {
        const locks = webLocks();
        const body = () => this.roundBody(signal);
        const result = locks ? await locks.request(`engram-sync-round:${this.storeName}`, signal ? { signal } : {}, body) : await body();
        this.setStatus({ state: this.loop ? 'idle' : 'stopped', lastSyncedAt: this.clock(), lastError: null });
        return result;
      } catch (error) {
        const typed = error instanceof EngramError ? error : new SyncError(`sync: ${(error as Error)?.message ?? String(error)}`, { reason: 'network' });
        if (!(typed instanceof AbortError)) {
          this.setStatus({ state: 'error', lastError: { code: typed.code, ...(typed instanceof SyncError ? { reason: typed.reason } : {}), message: typed.message } });
        }
        throw typed;
      } finally {
        void this.countPending();
      }
    };
    const next = this.rounds.then(run, run);
    this.rounds = next.catch(() => undefined);
    return next;
  }

  private async roundBody(signal: AbortSignal | undefined): Promise<SyncRoundResult> {
    const engine = this.engine;
    const replica: LocalReplica = {
      device: this.device!,
      pendingChanges: (limit) => forward(engine, pendingSyncChanges, [limit]),
      acknowledge: (seq) => forward(engine, acknowledgeSyncChanges, [seq]),
      loadPullState: () => forward(engine, loadSyncPullState, []),
      applyRemote: async (batch) => void (await forward(engine, applySyncBatch, [batch])),
    };
    return syncRound({ replica, client: this.client!, key: await this.key!, space: this.options!.space, signal });
  }

  /** The background loop: while this tab holds the profile's sync lock, a round every interval (sooner after a local write), backing off after failures. */
  private async run(signal: AbortSignal): Promise<void> {
    const loop = async () => {
      let failures = 0;
      while (!signal.aborted) {
        try {
          await this.round(signal);
          failures = 0;
        } catch (error) {
          if (signal.aborted) break;
          if (error instanceof SyncError && NEEDS_THE_APP.has(error.reason)) break;
          failures++;
        }
        const wait = failures === 0 ? (this.options!.intervalMs ?? DEFAULT_INTERVAL_MS) : backoffDelay(failures - 1, DEFAULT_BACKOFF, Math.random);
        await this.pause(wait, signal);
      }
    };
    const locks = webLocks();
    try {
      if (!locks) return await loop();
      this.setStatus({ state: 'standby' });
      await locks.request(`engram-sync:${this.storeName}`, { signal }, loop);
    } catch (error) {
      // Stopped while waiting for the lock: nothing to report.
      if (!signal.aborted) throw error;
    } finally {
      if (this.current.state !== 'error') this.setStatus({ state: 'stopped' });
    }
  }

  /** Waits `ms`, or until a local write or `stop()` wakes it. */
  private async pause(ms: number, signal: AbortSignal): Promise<void> {
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    await Promise.race([sleep(ms, signal, 'sync').catch(() => undefined), woken]);
    this.wake = undefined;
  }

  /** A committed write (this tab's, another's, or a pull's): the pending count is refreshed, and a round started if there is something to push. */
  private localChange(): void {
    void this.countPending().then((pending) => {
      if (pending > 0 && this.current.state !== 'syncing') this.wake?.();
    });
  }

  private async countPending(): Promise<number> {
    if (this.counting || !this.device) return this.current.pending;
    this.counting = true;
    try {
      const pending = await forward(this.engine, countSyncChanges, []);
      if (pending !== this.current.pending) this.setStatus({ pending });
      return pending;
    } catch {
      return this.current.pending;
    } finally {
      this.counting = false;
    }
  }

  private setStatus(patch: Partial<SyncStatus>): void {
    const next = { ...this.current, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.emitter.emit({ type: 'sync', status: next });
  }
}
