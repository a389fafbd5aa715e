import { ValidationError } from '../errors.js';
import { lazyChunkError } from '../lazy-chunk.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import { parseInput } from '../schema/parse.js';
import type { Emitter } from '../telemetry/emitter.js';
import type { SyncDriver } from './sync-driver.js';
import { syncOptionsSchema, type ParsedSyncOptions, type SyncOptions, type SyncStatus } from '../schema/sync-options.js';
import type { SyncRoundResult } from '../replication/sync-round.js';

/**
 * `memory.sync`: sync with other devices through a hub (docs/sync.md). It
 * validates the options and holds the status; the rounds, the key and the
 * transport (./sync-driver.ts) are loaded with the first `start()` or
 * `now()`, so a page that never syncs does not carry them.
 */
export class MemorySync {
  private options: ParsedSyncOptions | undefined;
  /** The driver's module, loaded when options are first given; the driver itself is made by the first start() or now(). */
  private module: Promise<typeof import('./sync-driver.js')> | undefined;
  private driver: Promise<SyncDriver> | undefined;
  private current: SyncStatus = { state: 'stopped', device: null, pending: 0, lastSyncedAt: null, lastError: null };

  /** @internal made by `Memory` */
  constructor(
    private readonly engine: EngineRemote,
    private readonly emitter: Emitter,
    private readonly storeName: string,
  ) {}

  /** Where sync is now (see `SyncStatus`); the `sync` event carries each change of it, and `memory.live({ sync: {} })` follows it. */
  get status(): SyncStatus {
    return this.current;
  }

  /** @internal validates the options (zod, on their data) without starting. */
  configure(options: SyncOptions): void {
    const parsed = parseInput(syncOptionsSchema, options, 'sync', { copy: false }) as ParsedSyncOptions;
    if (this.driver) throw new ValidationError('sync.start: sync was already set up with other options on this memory; open the memory again to change them.', [{ path: '', message: 'already configured' }]);
    this.options = parsed;
    // Loaded now, while the page is likely online: a device that goes offline before its first round can still sync later.
    this.loadModule().catch(() => undefined);
  }

  /**
   * Starts syncing in the background: a round now, then one every
   * `intervalMs` and soon after each local write. The first start on a
   * store gives it a device id and queues every stored record for the hub.
   * Resolves once sync is set up (not after the first round: see `now()`).
   */
  async start(options?: SyncOptions): Promise<void> {
    if (options !== undefined) this.configure(options);
    await (await this.load('sync.start')).start();
  }

  /** Stops the background loop (a round under way is aborted; what it applied stays applied). */
  async stop(): Promise<void> {
    if (!this.driver) return;
    await (await this.driver).stop();
    this.set({ state: 'stopped' });
  }

  /** One round now (push everything pending, pull until the hub has nothing more); rejects with the round's typed error (`SyncError`). */
  async now(options: { signal?: AbortSignal } = {}): Promise<SyncRoundResult> {
    return (await this.load('sync.now')).now(options.signal);
  }

  private load(call: string): Promise<SyncDriver> {
    const options = this.options;
    if (!options) return Promise.reject(new ValidationError(`${call}: no hub and key: pass them to createMemory({ sync }) or sync.start(options).`, [{ path: '', message: 'options required' }]));
    this.driver ??= this.loadModule().then(
      ({ SyncDriver }) => new SyncDriver(this.engine, this.emitter, this.storeName, options, { get: () => this.current, set: (patch) => this.set(patch) }),
      (error: unknown) => {
        this.driver = undefined;
        throw error;
      },
    );
    return this.driver;
  }

  private loadModule(): Promise<typeof import('./sync-driver.js')> {
    this.module ??= import('./sync-driver.js').catch((cause: unknown) => {
      this.module = undefined;
      throw lazyChunkError('its sync driver', cause);
    });
    return this.module;
  }

  private set(patch: Partial<SyncStatus>): void {
    const next = { ...this.current, ...patch };
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.emitter.emit({ type: 'sync', status: next });
  }
}
