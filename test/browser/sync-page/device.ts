/**
 * A sync device in a browser page (test/browser/sync-in-chromium.test.ts):
 * the key made with the page's WebCrypto, rows sealed and opened there,
 * pushed and pulled with the page's fetch. Bundled by esbuild from the
 * sources; exposed as `window.syncDevice`.
 */
import { createHubClient } from '../../../src/replication/hub-client.js';
import { createSyncKey } from '../../../src/replication/sync-key.js';
import { syncRound } from '../../../src/replication/sync-round.js';
import { SyncError } from '../../../src/errors.js';
import { MemoryReplica } from '../../support/memory-replica.js';

const replica = new MemoryReplica('chromium');

async function sync(options: { url: string; token: string; passphrase: string; space: string }) {
  const key = await createSyncKey({ passphrase: options.passphrase, salt: options.space, iterations: 100_000 });
  const client = createHubClient({ url: options.url, headers: { authorization: `Bearer ${options.token}` }, retries: 0 });
  try {
    const result = await syncRound({ replica, client, key, space: options.space });
    return { keyTag: key.keyTag, result, live: replica.live() };
  } catch (error) {
    return { error: error instanceof SyncError ? { name: error.name, reason: error.reason } : String(error), live: replica.live() };
  }
}

function write(id: string, text: string, vector: number[]) {
  replica.put('fact', id, { text }, { embedder: 'static-3', values: new Float32Array(vector) });
}

(window as unknown as { syncDevice: unknown }).syncDevice = { sync, write };
