import * as z from 'zod/mini';
import { hubClientOptionsSchema } from './hub-client-options.js';
import { syncKeyInputSchema } from './sync-key-input.js';
import { builtSchema, lazySchema } from './lazy-schema.js';

/**
 * `createMemory({ sync })` and `memory.sync.start(options)`: where the hub
 * is, the key the space's rows are sealed under, and the space's name.
 */
export const syncOptionsSchema = lazySchema(() => z.strictObject({
  /** The hub: its URL, or the hub client's options (`{ url, headers, fetch, retries, ... }`: replication/hub-client.ts). */
  remote: z.union([builtSchema(hubClientOptionsSchema).shape.url, hubClientOptionsSchema]),
  /** The key (replication/sync-key.ts `SyncKeyInput`): every device of the space needs the same one. */
  key: syncKeyInputSchema,
  /** The space's name, the same on every device of it (it is bound into every row; the hub's `authorize` decides the space it stores them in). */
  space: z.string().check(z.minLength(1), z.maxLength(200)),
  /** Time between rounds while started (default 5000 ms); a local write starts a round sooner. */
  intervalMs: z.optional(z.number().check(z.int(), z.gte(10), z.lte(86_400_000))),
  /** With `createMemory({ sync })`: start at once (default true). */
  autoStart: z.optional(z.boolean()),
}));
/**
 * `createMemory({ sync })` and `memory.sync.start(options)`: `remote` (the hub), `key`, `space`, `intervalMs`, `autoStart` (docs/sync.md).
 * @interface
 */
export type SyncOptions = z.input<typeof syncOptionsSchema>;
export type ParsedSyncOptions = z.output<typeof syncOptionsSchema>;

/** Where sync is, as `memory.sync.status`, the `sync` event and `memory.live({ sync: {} })` report it. */
export interface SyncStatus {
  /**
   * - 'stopped': not started (or stopped, or stopped by an error that needs the app: a wrong key, another space, a retired device);
   * - 'standby': started, while another tab of this profile syncs (Web Locks);
   * - 'syncing': a round is running;
   * - 'idle': the last round succeeded; the next comes after `intervalMs` or a local write;
   * - 'error': the last round failed (`lastError`); it is retried with backoff.
   */
  state: 'stopped' | 'standby' | 'syncing' | 'idle' | 'error';
  /** This store's device id; null before sync was first started. */
  device: string | null;
  /** Local changes the hub does not hold yet. */
  pending: number;
  /** When a round last succeeded (epoch ms), or null. */
  lastSyncedAt: number | null;
  /** The last round's failure (a SyncError's reason and message), or null after a success. */
  lastError: { code: string; reason?: string; message: string } | null;
}
