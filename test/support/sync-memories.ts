import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createSyncHandler, pgliteSyncStore, postgresSyncStore, type SyncStore } from '../../src/server.js';
import type { Memory, MemoryOptions } from '../../src/index.js';
import { openMemory } from './memory.js';
import { startPostgres } from './postgres-server.js';
import { bearerSpaces, serveOnLoopback } from './sync-hub.js';

export const SECRET = 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS';

/**
 * A real hub for memories' sync tests: createSyncHandler on PGlite (or, with
 * `postgres`, a Postgres server started for it), served on loopback;
 * `tokens` maps bearer tokens to spaces. `db.query` reads the hub's tables.
 */
export async function startHub(
  tokens: Record<string, string>,
  options: { postgres?: boolean; around?: (request: Request, hub: (request: Request) => Promise<Response>) => Promise<Response> } = {},
) {
  let store: SyncStore;
  let db: { query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> };
  let shut: () => Promise<void>;
  if (options.postgres) {
    const server = await startPostgres();
    const pool = new pg.Pool({ connectionString: server.connectionString, max: 5 });
    store = postgresSyncStore(pool);
    db = { query: async <T,>(text: string, params?: unknown[]) => ({ rows: (await pool.query(text, params)).rows as T[] }) };
    shut = async () => {
      await pool.end();
      server.stop();
    };
  } else {
    const lite = await PGlite.create();
    store = pgliteSyncStore(lite);
    db = { query: async <T,>(text: string, params?: unknown[]) => ({ rows: (await lite.query<T>(text, params)).rows }) };
    shut = () => lite.close();
  }
  const handler = createSyncHandler({ store, authorize: bearerSpaces(tokens) });
  const served = await serveOnLoopback((request) => (options.around ? options.around(request, handler) : handler(request)));
  return {
    url: served.url,
    db,
    async close() {
      await served.close();
      await shut();
    },
  };
}

/** A memory with its own store, syncing (rounds by `sync.now()` only) with the hub at `url` as `token`. */
export function syncedMemory(url: string, token: string, space: string, options: Partial<MemoryOptions> & { secret?: string } = {}): Promise<Memory> {
  const { secret, ...rest } = options;
  return openMemory({
    sync: { remote: { url, headers: { authorization: `Bearer ${token}` }, retries: 0 }, key: { secret: secret ?? SECRET }, space, autoStart: false },
    ...rest,
  });
}
