import { AbortError, EngramError, SyncError } from '../errors.js';
import { forward } from './forward.js';
import { acknowledgeSyncChanges, applySyncBatch, countSyncChanges, enableSync, loadSyncPullState, pendingSyncChanges } from '../operations/sync.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import type { Emitter } from '../telemetry/emitter.js';
import { backoffDelay, DEFAULT_BACKOFF, sleep } from '../replication/backoff.js';
import { createHubClient, type HubClient } from '../replication/hub-client.js';
import type { LocalReplica } from '../replication/local-replica.js';
import { createSyncKey, type SyncKey } from '../replication/sync-key.js';
import type { ParsedSyncOptions, SyncStatus } from '../schema/sync-options.js';
import { syncRound, type SyncRoundResult } from '../replication/sync-round.js';

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

/** Where the driver reads and reports the status `memory.sync` holds (memory-sync.ts). */
export interface StatusCell {
  get(): SyncStatus;
  set(patch: Partial<SyncStatus>): void;
}

/**
 * What `memory.sync` runs, loaded with its first `start()` or `now()` (so
 * a page that never syncs carries none of it): sync rounds (sync-round.ts)
 * on the page side of the engine (the key, the hub client and the
 * transport stay here; the engine does the replica's reads and writes
 * through its operations, in-process or in a worker alike).
 *
 * One tab of a profile syncs at a time: the background loop runs while its
 * tab holds the Web Lock `engram-sync:<name>` (the others are 'standby',
 * and see its writes through the cross-tab feed), and each round, also
 * `now()`'s, holds `engram-sync-round:<name>`, so rounds never overlap.
 */
export class SyncDriver {
  private key: Promise<SyncKey> | undefined;
  private client: HubClient | undefined;
  private device: string | null = null;
  private loop: Promise<void> | undefined;
  private stopping: AbortController | undefined;
  private wake: (() => void) | undefined;
  private rounds: Promise<unknown> = Promise.resolve();
  private counting = false;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly engine: EngineRemote,
    private readonly emitter: Emitter,
    private readonly storeName: string,
    private readonly options: ParsedSyncOptions,
    private readonly status: StatusCell,
    private readonly clock: () => number = Date.now,
  ) {}

  get running(): boolean {
    return this.loop !== undefined;
  }

  /** Starts the background loop: a round now, then one every `intervalMs` and soon after each local write. */
  async start(): Promise<void> {
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
  }

  /** One round now; rejects with the round's typed error. */
  async now(signal?: AbortSignal): Promise<SyncRoundResult> {
    await this.prepare();
    return this.round(signal);
  }

  /** Makes the key and the client, and turns capture on in the store (once). */
  private async prepare(): Promise<void> {
    const options = this.options;
    this.key ??= createSyncKey(options.key);
    this.client ??= createHubClient(typeof options.remote === 'string' ? { url: options.remote } : options.remote);
    if (!this.device) {
      const { device } = await forward(this.engine, enableSync, []);
      this.device = device;
      this.status.set({ device });
    }
    await this.key;
  }

  /** One round, after any this tab is running, under the profile's round lock. */
  private round(signal: AbortSignal | undefined): Promise<SyncRoundResult> {
    const run = async () => {
      this.status.set({ state: 'syncing' });
      try {
        const locks = webLocks();
        const body = () => this.roundBody(signal);
        const result = locks ? await locks.request(`engram-sync-round:${this.storeName}`, signal ? { signal } : {}, body) : await body();
        this.status.set({ state: this.loop ? 'idle' : 'stopped', lastSyncedAt: this.clock(), lastError: null });
        return result;
      } catch (error) {
        const typed = error instanceof EngramError ? error : new SyncError(`sync: ${(error as Error)?.message ?? String(error)}`, { reason: 'network' });
        if (!(typed instanceof AbortError)) {
          this.status.set({ state: 'error', lastError: { code: typed.code, ...(typed instanceof SyncError ? { reason: typed.reason } : {}), message: typed.message } });
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
    return syncRound({ replica, client: this.client!, key: await this.key!, space: this.options.space, signal });
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
        const wait = failures === 0 ? (this.options.intervalMs ?? DEFAULT_INTERVAL_MS) : backoffDelay(failures - 1, DEFAULT_BACKOFF, Math.random);
        await this.pause(wait, signal);
      }
    };
    const locks = webLocks();
    try {
      if (!locks) return await loop();
      this.status.set({ state: 'standby' });
      await locks.request(`engram-sync:${this.storeName}`, { signal }, loop);
    } catch (error) {
      // Stopped while waiting for the lock: nothing to report.
      if (!signal.aborted) throw error;
    } finally {
      if (this.status.get().state !== 'error') this.status.set({ state: 'stopped' });
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
      if (pending > 0 && this.status.get().state !== 'syncing') this.wake?.();
    });
  }

  private async countPending(): Promise<number> {
    if (this.counting || !this.device) return this.status.get().pending;
    this.counting = true;
    try {
      const pending = await forward(this.engine, countSyncChanges, []);
      if (pending !== this.status.get().pending) this.status.set({ pending });
      return pending;
    } catch {
      return this.status.get().pending;
    } finally {
      this.counting = false;
    }
  }
}
