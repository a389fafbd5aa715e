import { PGlite } from '@electric-sql/pglite';
import { createSyncHandler, pgliteSyncStore } from '../../src/server.js';
import type { Memory, MemoryOptions } from '../../src/index.js';
import { openMemory } from './memory.js';
import { bearerSpaces, serveOnLoopback } from './sync-hub.js';

export const SECRET = 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS';

/** A real hub for memories' sync tests: createSyncHandler on PGlite, served on loopback; `tokens` maps bearer tokens to spaces. */
export async function startHub(tokens: Record<string, string>, options: { around?: (request: Request, hub: (request: Request) => Promise<Response>) => Promise<Response> } = {}) {
  const db = await PGlite.create();
  const handler = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces(tokens) });
  const served = await serveOnLoopback((request) => (options.around ? options.around(request, handler) : handler(request)));
  return {
    url: served.url,
    db,
    async close() {
      await served.close();
      await db.close();
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
