import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import { createHubClient, type HubClientOptions } from '../../src/replication/hub-client.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../../src/replication/sync-key.js';
import { syncRound } from '../../src/replication/sync-round.js';
import { createSyncHandler, pgliteSyncStore, postgresSyncStore, type SyncHandlerOptions, type SyncStore } from '../../src/server.js';
import { MemoryReplica } from '../support/memory-replica.js';
import { seededRandom } from '../support/seeded-random.js';
import { canRunPostgres, startPostgres, type PostgresServer } from '../support/postgres-server.js';
import { bearerSpaces, serveOnLoopback } from '../support/sync-hub.js';

/**
 * The sync hub (createSyncHandler over a SyncStore) with real parts: the
 * handler served by Node's http on loopback, the fetch-based client, and
 * the store on PGlite and on a real Postgres server started for this file.
 * The devices are in-memory replicas following the LocalReplica contract.
 */
interface Backend {
  store: SyncStore;
  /** Runs SQL against the hub's database, to look at what it holds. */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** One PGlite for the file (starting one costs seconds): tests keep apart by space. */
let sharedPglite: Promise<PGlite> | undefined;
const pglite = () => (sharedPglite ??= PGlite.create());
afterAll(async () => {
  await (await sharedPglite)?.close();
});

const postgresMissing = !canRunPostgres();
if (postgresMissing) console.warn('sync-hub.test.ts: Postgres tests SKIPPED: initdb/pg_ctl not found (apt-get install postgresql, or bash scripts/ensure-postgres.sh)');

const backends: { name: string; skip: boolean; start(): Promise<Backend> }[] = [
  {
    name: 'PGlite',
    skip: false,
    async start() {
      const db = await pglite();
      return { store: pgliteSyncStore(db), sql: async (text, params) => (await db.query<Record<string, unknown>>(text, params)).rows, close: async () => undefined };
    },
  },
  {
    name: 'Postgres',
    skip: postgresMissing,
    async start() {
      const server: PostgresServer = await startPostgres();
      const pool = new pg.Pool({ connectionString: server.connectionString, max: 5 });
      return {
        store: postgresSyncStore(pool),
        sql: async (text, params) => (await pool.query(text, params)).rows,
        close: async () => {
          await pool.end();
          server.stop();
        },
      };
    },
  },
];

const SECRET = 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS';
const key = await createSyncKey({ secret: SECRET });
let spaces = 0;

describe.each(backends)('the sync hub on $name', ({ skip, start }) => {
  let backend: Backend;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    if (!skip) backend = await start();
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await backend?.close();
  });

  /** A hub on loopback for a fresh space, with a token for it; `options` override the handler's. */
  async function hub(options: Partial<SyncHandlerOptions> = {}) {
    const space = `space-${++spaces}`;
    const token = `token-${spaces}`;
    const served = await serveOnLoopback(createSyncHandler({ store: backend.store, authorize: bearerSpaces({ [token]: space }), ...options }));
    closers.push(served.close);
    const client = (extra: Partial<HubClientOptions> = {}) => createHubClient({ url: served.url, headers: { authorization: `Bearer ${token}` }, retries: 0, ...extra });
    const round = (replica: MemoryReplica, extra: Partial<HubClientOptions> = {}) => syncRound({ replica, client: client(extra), key, space });
    return { space, token, url: served.url, client, round };
  }

  it.skipIf(skip)('two devices that wrote offline converge through the hub, which holds ciphertext and routing metadata only', async () => {
    const { space, round } = await hub();
    const phone = new MemoryReplica('phone');
    const laptop = new MemoryReplica('laptop');
    phone.put('fact', 'f-city', { userId: 'user-42', text: 'The user lives in Lisbon' }, { embedder: 'static-128', values: new Float32Array([0.5, -0.25, 0.125]) });
    phone.put('fact', 'f-pet', { userId: 'user-42', text: 'Has a cat named Miso' });
    laptop.put('episode', 'e-trip', { userId: 'user-42', text: 'Planned the trip to Porto with Ana' });
    laptop.put('fact', 'f-city', { userId: 'user-42', text: 'The user lives in Porto' }); // later: wins
    laptop.delete('fact', 'f-pet'); // later than the phone's put: wins

    await round(phone);
    await round(laptop);
    await round(phone);
    expect(phone.live()).toEqual(laptop.live());
    expect(Object.keys(phone.live())).toEqual(['episode/e-trip', 'fact/f-city']);
    expect((phone.live()['fact/f-city'] as { record: { text: string } }).record.text).toBe('The user lives in Porto');

    const rows = await backend.sql('SELECT * FROM engram_sync_changes WHERE space = $1', [space]);
    // One row per record: the superseded versions were dropped when the later ones arrived.
    expect(rows.length).toBe(3);
    const everything = JSON.stringify(rows, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    for (const secret of ['Lisbon', 'Porto', 'Miso', 'Ana', 'user-42', 'f-city', 'e-trip', 'episode', 'static-128']) expect(everything).not.toContain(secret);
    expect(Object.keys(rows[0]!).sort()).toEqual(['ciphertext', 'cursor', 'device', 'hlc', 'key_hash', 'nonce', 'op', 'seq', 'space', 'stored_at']);
  });

  it.skipIf(skip)('a push retried after its answer was lost stores nothing twice', async () => {
    const { space, client } = await hub();
    const phone = new MemoryReplica('phone');
    for (let i = 0; i < 5; i++) phone.put('fact', `f${i}`, { text: `fact ${i}` });
    let pushes = 0;
    // The hub commits the first push, then the answer never reaches the device (a hub killed after COMMIT, a dropped connection).
    const losesFirstAnswer: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith('/push') && ++pushes === 1) throw new TypeError('fetch failed: socket hang up');
      return response;
    };
    const result = await syncRound({ replica: phone, client: client({ fetch: losesFirstAnswer, retries: 3, sleep: async () => undefined }), key, space });
    expect(pushes).toBe(2);
    expect(result.pushed).toBe(5);
    const rows = await backend.sql('SELECT seq::int AS seq FROM engram_sync_changes WHERE space = $1 ORDER BY seq', [space]);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    // The same rows again (sealed anew: fresh nonces) are answered as already held.
    const resealed = await Promise.all([1, 2, 3, 4, 5].map((seq) => sealChange(key, { space, seq, change: phone.records.get(`fact/f${seq - 1}`)! })));
    expect(await client().push({ device: 'phone', keyTag: key.keyTag, spaceTag: await spaceTag(key, space), rows: resealed })).toEqual({ stored: 0, skipped: 5, through: 5 });
    expect(await backend.sql('SELECT count(*)::int AS n FROM engram_sync_changes WHERE space = $1', [space])).toEqual([{ n: 5 }]);
  });

  it.skipIf(skip)('the space is the one authorize returns: another token sees nothing of it, no token is refused (401, not retried)', async () => {
    const a = await hub();
    const b = await hub();
    const phone = new MemoryReplica('phone');
    phone.put('fact', 'f1', { text: 'secret of space a' });
    await a.round(phone);
    const stranger = new MemoryReplica('stranger');
    // Same key and same space name: only the token differs, and it maps to another space.
    await syncRound({ replica: stranger, client: b.client(), key, space: a.space });
    expect(stranger.live()).toEqual({});

    let requests = 0;
    const counting: typeof fetch = (input, init) => (requests++, fetch(input, init));
    const error = await syncRound({ replica: new MemoryReplica('anon'), client: createHubClient({ url: a.url, fetch: counting, retries: 3 }), key, space: a.space }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncError);
    expect((error as SyncError).reason).toBe('unauthorized');
    expect(requests).toBe(1);
  });

  it.skipIf(skip)('a device with another key is refused on push (wrong_key, nothing stored) and on its first pull', async () => {
    const { space, round, client } = await hub();
    const phone = new MemoryReplica('phone');
    phone.put('fact', 'f1', { text: 'written under the right key' });
    await round(phone);
    const wrongKey = await createSyncKey({ secret: SECRET.toUpperCase() });
    const intruder = new MemoryReplica('intruder');
    intruder.put('fact', 'f2', { text: 'sealed under another key' });
    const pushError = await syncRound({ replica: intruder, client: client(), key: wrongKey, space }).catch((e: unknown) => e);
    expect((pushError as SyncError).reason).toBe('wrong_key');
    expect((pushError as SyncError).details.status).toBe(409);
    expect(await backend.sql('SELECT device FROM engram_sync_changes WHERE space = $1', [space])).toEqual([{ device: 'phone' }]);

    const reader = new MemoryReplica('reader');
    const pullError = await syncRound({ replica: reader, client: client(), key: wrongKey, space }).catch((e: unknown) => e);
    expect((pullError as SyncError).reason).toBe('wrong_key');
    expect(reader.appliedBatches).toEqual([]);
  });

  it.skipIf(skip)('a device naming the space differently is refused (foreign_space)', async () => {
    const { space, round, client } = await hub();
    const phone = new MemoryReplica('phone');
    phone.put('fact', 'f1', { text: 'x' });
    await round(phone);
    const confused = new MemoryReplica('confused');
    confused.put('fact', 'f2', { text: 'y' });
    const error = await syncRound({ replica: confused, client: client(), key, space: `${space}-typo` }).catch((e: unknown) => e);
    expect((error as SyncError).reason).toBe('foreign_space');
  });

  it.skipIf(skip)('pulls come in batches and resume from the stored cursor', async () => {
    const { round } = await hub({ maxPullRows: 10 });
    const phone = new MemoryReplica('phone');
    for (let i = 0; i < 25; i++) phone.put('fact', `f${i}`, { text: `fact ${i}` });
    await round(phone, { maxPushRows: 7 });
    const laptop = new MemoryReplica('laptop');
    const first = await round(laptop, { pullLimit: 50 });
    // The hub's limit (10) wins over the client's ask (50): 10 + 10 + 5.
    expect(first).toMatchObject({ batches: 3, applied: 25 });
    expect(laptop.appliedBatches.map((b) => b.changes.length)).toEqual([10, 10, 5]);
    for (let i = 25; i < 30; i++) phone.put('fact', `f${i}`, { text: `fact ${i}` });
    await round(phone);
    const second = await round(laptop);
    expect(second).toMatchObject({ batches: 1, applied: 5 });
    expect(laptop.live()).toEqual(phone.live());
  });

  it.skipIf(skip)('a tombstone is dropped once every known device has pulled past it, not before', async () => {
    const { space, round } = await hub({ compactEveryMs: 1e12 });
    const phone = new MemoryReplica('phone');
    const laptop = new MemoryReplica('laptop');
    phone.put('fact', 'f1', { text: 'soon deleted' });
    await round(phone);
    await round(laptop);
    laptop.delete('fact', 'f1');
    await round(laptop);
    const tombstones = () => backend.sql(`SELECT seq::int AS seq FROM engram_sync_changes WHERE space = $1 AND op = 'delete'`, [space]);
    expect(await tombstones()).toHaveLength(1);
    // The phone has not pulled it yet.
    expect(await backend.store.compact(space, { now: Date.now() })).toEqual({ passed: 0, expired: 0, retiredDevices: 0 });
    await round(phone); // pulls the tombstone
    expect(phone.live()).toEqual({});
    expect(await backend.store.compact(space, { now: Date.now() })).toMatchObject({ passed: 0 });
    await round(phone); // asks after it: now it has passed it
    await round(laptop);
    expect(await backend.store.compact(space, { now: Date.now() })).toEqual({ passed: 1, expired: 0, retiredDevices: 0 });
    expect(await tombstones()).toEqual([]);
    // A device joining later sees nothing of the deleted record.
    const tablet = new MemoryReplica('tablet');
    await round(tablet);
    expect(tablet.live()).toEqual({});
  });

  it.skipIf(skip)('devices editing, deleting and syncing at random converge, and a device joining afterwards gets the same records', async () => {
    const seed = Number(process.env.SYNC_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    let now = 1_700_000_000_000;
    // Every pull compacts: tombstones go as soon as every device has passed them.
    const { round, space } = await hub({ now: () => now, compactEveryMs: 0 });
    // Clocks that drift apart and go back at times, within a few seconds.
    const devices = ['phone', 'laptop', 'tablet'].map((name, i) => new MemoryReplica(name, () => now + [0, 1500, -2500][i]! + Math.floor(random() * 1000) - 500));
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
    try {
      for (let step = 0; step < 150; step++) {
        now += Math.floor(random() * 50);
        const device = pick(devices);
        const roll = random();
        if (roll < 0.5) device.put(pick(['fact', 'episode']), pick(ids), { text: `${device.device} step ${step}` });
        else if (roll < 0.7) device.delete(pick(['fact', 'episode']), pick(ids));
        else await round(device, { maxPushRows: 1 + Math.floor(random() * 4), pullLimit: 1 + Math.floor(random() * 6) });
      }
      // Two final rounds each: everyone pushes, then everyone pulls what the others pushed.
      for (let i = 0; i < 2; i++) for (const device of devices) await round(device);
      for (const device of devices.slice(1)) expect(device.live()).toEqual(devices[0]!.live());
      const late = new MemoryReplica('late');
      await round(late);
      expect(late.live()).toEqual(devices[0]!.live());
      // At most one row per record on the hub.
      const perRecord = await backend.sql('SELECT key_hash, count(*)::int AS n FROM engram_sync_changes WHERE space = $1 GROUP BY key_hash HAVING count(*) > 1', [space]);
      expect(perRecord).toEqual([]);
    } catch (error) {
      throw new Error(`seed ${seed} (rerun with SYNC_SEED=${seed}): ${(error as Error).message}`, { cause: error });
    }
  });

  it.skipIf(skip)('after the TTL a tombstone goes anyway, and a device that had not passed it must rejoin (expired)', async () => {
    let now = 1_000_000_000_000;
    const day = 86_400_000;
    const { space, round, client } = await hub({ now: () => now, tombstoneTtlMs: day, compactEveryMs: 0 });
    const phone = new MemoryReplica('phone', () => now);
    const laptop = new MemoryReplica('laptop', () => now);
    phone.put('fact', 'f1', { text: 'soon deleted' });
    await round(phone);
    await round(laptop);
    phone.delete('fact', 'f1');
    await round(phone);
    now += 2 * day; // the laptop stays away
    await round(phone); // the pull compacts: the tombstone is past the TTL
    expect(await backend.sql(`SELECT 1 FROM engram_sync_changes WHERE space = $1 AND op = 'delete'`, [space])).toEqual([]);
    const error = await round(laptop).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncError);
    expect((error as SyncError).reason).toBe('expired');
    expect((error as SyncError).details.status).toBe(410);
    // Rejoining with a new device id and an empty replica converges.
    const rejoined = new MemoryReplica('laptop-2', () => now);
    await syncRound({ replica: rejoined, client: client(), key, space });
    expect(rejoined.live()).toEqual(phone.live());
  });
});

describe('the sync handler refuses what it must', () => {
  let db: PGlite;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    db = await pglite();
    const served = await serveOnLoopback(createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ t: 'space-limits' }), maxBodyBytes: 64 * 1024, maxPushRows: 3 }));
    url = served.url;
    close = served.close;
  });
  afterAll(async () => {
    await close();
  });
  const auth = { authorization: 'Bearer t' };
  const refusal = async (response: Response) => ({ status: response.status, reason: ((await response.json()) as { error: { reason: string } }).error.reason });
  const row = async (seq: number, device = 'phone') =>
    sealChange(key, { space: 'space-limits', seq, change: { kind: 'fact', id: `f${seq}`, op: 'delete', hlc: formatHlc({ wall: seq, counter: 0, device }), device } });
  const pushBody = async (rows: unknown[]) => JSON.stringify({ protocol: 1, device: 'phone', keyTag: key.keyTag, spaceTag: key.keyTag, rows });

  it('answers each refusal with its status and a JSON reason', async () => {
    const post = (body: string, headers: Record<string, string> = auth) => fetch(`${url}/push`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(await refusal(await post('{}', {}))).toEqual({ status: 401, reason: 'unauthorized' });
    expect(await refusal(await post('x'.repeat(70 * 1024)))).toEqual({ status: 413, reason: 'too_large' });
    expect(await refusal(await post('not json'))).toEqual({ status: 400, reason: 'malformed' });
    expect(await refusal(await post('{"protocol":2}'))).toEqual({ status: 400, reason: 'malformed' });
    expect(await refusal(await post(await pushBody([await row(1), await row(2), await row(3), await row(4)])))).toEqual({ status: 413, reason: 'too_large' });
    expect(await refusal(await post(await pushBody([await row(2), await row(1)])))).toEqual({ status: 400, reason: 'malformed' });
    expect(await refusal(await post(await pushBody([await row(1, 'laptop')])))).toEqual({ status: 400, reason: 'malformed' });
    expect(await refusal(await fetch(`${url}/push`, { headers: auth }))).toEqual({ status: 405, reason: 'method' });
    expect(await refusal(await fetch(`${url}/elsewhere`, { headers: auth }))).toEqual({ status: 404, reason: 'not_found' });
    expect(await refusal(await fetch(`${url}/pull`, { headers: auth }))).toEqual({ status: 400, reason: 'malformed' });
    expect(await refusal(await fetch(`${url}/pull?device=phone&after=99`, { headers: auth }))).toEqual({ status: 410, reason: 'expired' });
    // Nothing of it was stored.
    expect((await db.query(`SELECT count(*)::int AS n FROM engram_sync_changes WHERE space = 'space-limits'`)).rows).toEqual([{ n: 0 }]);
  });

  it('the client turns a too-large push into a typed error', async () => {
    const phone = new MemoryReplica('phone');
    for (let i = 0; i < 5; i++) phone.put('fact', `f${i}`, { text: `fact ${i}` });
    const error = await syncRound({ replica: phone, client: createHubClient({ url, headers: auth, retries: 0, maxPushRows: 5 }), key, space: 'space-limits' }).catch((e: unknown) => e);
    expect((error as SyncError).reason).toBe('too_large');
    expect((error as SyncError).details.status).toBe(413);
  });
});
