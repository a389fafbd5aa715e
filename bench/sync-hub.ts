/**
 * The sync hub's throughput (npm run bench:sync-hub): simulated devices
 * push sealed changes concurrently, then each pulls everything the others
 * pushed, through the real handler on loopback, on PGlite and on a real
 * Postgres (started like the tests do; skipped when it is not installed).
 * Each change is a fact-sized record (about 200 characters) with a 128-d
 * vector. Prints rows per second, bytes per row on the wire and in the
 * database, with the load average. Options: DEVICES (100), ROWS (20 per
 * device), CONCURRENCY (10 devices talking to the hub at once), REPEAT (3
 * runs per back end, each on an empty database; the medians are printed).
 */
import os from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { formatHlc } from '../src/replication/hlc.js';
import { createHubClient } from '../src/replication/hub-client.js';
import { initialPullState } from '../src/replication/pull-state.js';
import { openBatch } from '../src/replication/open-batch.js';
import { sealChange } from '../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../src/replication/sync-key.js';
import { createSyncHandler, pgliteSyncStore, postgresSyncStore, type SyncStore } from '../src/server.js';
import { canRunPostgres, startPostgres } from '../test/support/postgres-server.js';
import { serveOnLoopback } from '../test/support/sync-hub.js';

const DEVICES = Number(process.env.DEVICES ?? 100);
/** Devices talking to the hub at once (a hub does not see all its devices in the same instant). */
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 10);
const ROWS = Number(process.env.ROWS ?? 20);
const REPEAT = Number(process.env.REPEAT ?? 3);
const SPACE = 'bench-space';
const key = await createSyncKey({ secret: 'a benchmark secret of 32 bytes or more' });
const tags = { keyTag: key.keyTag, spaceTag: await spaceTag(key, SPACE) };

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface RunFigures {
  pushRowsPerS: number;
  pullRowsPerS: number;
  openMs: number;
}

async function sealedRows(device: string) {
  return Promise.all(
    Array.from({ length: ROWS }, (_, i) => {
      const values = new Float32Array(128).map(() => Math.random() - 0.5);
      return sealChange(key, {
        space: SPACE,
        seq: i + 1,
        change: {
          kind: 'fact',
          id: `${device}-${i}`,
          op: 'put',
          hlc: formatHlc({ wall: 1_700_000_000_000 + i, counter: 0, device }),
          device,
          record: { userId: 'bench-user', text: `Fact ${i} of ${device}: `.padEnd(200, 'lorem ipsum '), category: 'preference', importance: 0.5 },
          vector: { embedder: 'static-128', values },
        },
      });
    }),
  );
}

/** Runs `work` for each item, at most CONCURRENCY at a time. */
async function pooled<T>(items: T[], work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  }));
}

async function run(name: string, store: SyncStore, sql: (text: string) => Promise<Record<string, unknown>[]>): Promise<RunFigures> {
  const hub = await serveOnLoopback(createSyncHandler({ store, authorize: () => SPACE, compactEveryMs: 1e12 }));
  const devices = Array.from({ length: DEVICES }, (_, i) => `device-${String(i).padStart(3, '0')}`);
  const rows = await Promise.all(devices.map(sealedRows));
  const wireBytes = rows.flat().reduce((sum, row) => sum + JSON.stringify(row).length, 0) / (DEVICES * ROWS);
  const client = createHubClient({ url: hub.url, retries: 0, timeoutMs: 600_000 });

  let started = performance.now();
  await pooled(devices, async (device, i) => void (await client.push({ device, ...tags, rows: rows[i]! })));
  const pushMs = performance.now() - started;

  started = performance.now();
  let pulled = 0;
  await pooled(devices, async (device) => {
    let state = initialPullState();
    for (;;) {
      const response = await client.pull({ device, after: state.cursor });
      pulled += response.rows.length;
      state = { cursor: response.next, seen: state.seen };
      if (!response.more) break;
    }
  });
  const pullMs = performance.now() - started;

  // Opening (verifying and decrypting) one device's whole pull, as a device does.
  started = performance.now();
  let state = initialPullState();
  let opened = 0;
  for (;;) {
    const response = await client.pull({ device: 'reader', after: state.cursor });
    const batch = await openBatch(key, { space: SPACE, device: 'reader', state, response });
    opened += batch.changes.length;
    state = batch.state;
    if (!response.more) break;
  }
  const openMs = performance.now() - started;

  const [{ bytes, count }] = (await sql(`SELECT pg_total_relation_size('engram_sync_changes')::bigint::text AS bytes, count(*)::int AS count FROM engram_sync_changes`)) as [{ bytes: string; count: number }];
  console.log(
    `${name}: ${DEVICES} devices × ${ROWS} rows, ${CONCURRENCY} at a time: push ${Math.round((DEVICES * ROWS) / (pushMs / 1000))} rows/s (${pushMs.toFixed(0)} ms), ` +
      `pull ${Math.round(pulled / (pullMs / 1000))} rows/s (${pulled} rows, ${pullMs.toFixed(0)} ms), ` +
      `one device pulls and opens all ${opened} in ${openMs.toFixed(0)} ms; ` +
      `${wireBytes.toFixed(0)} B/row on the wire (push JSON), ${(Number(bytes) / count).toFixed(0)} B/row in the database (table + indexes, ${count} rows); load ${load()}`,
  );
  await hub.close();
  return { pushRowsPerS: (DEVICES * ROWS) / (pushMs / 1000), pullRowsPerS: pulled / (pullMs / 1000), openMs };
}

function printMedians(name: string, runs: RunFigures[]): void {
  console.log(
    `${name}, median of ${runs.length}: push ${Math.round(median(runs.map((r) => r.pushRowsPerS)))} rows/s, pull ${Math.round(median(runs.map((r) => r.pullRowsPerS)))} rows/s, ` +
      `one device opens all in ${median(runs.map((r) => r.openMs)).toFixed(0)} ms; load ${load()}`,
  );
}

console.log(`load before: ${load()} (${os.cpus().length} cores)`);
{
  const runs: RunFigures[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const db = await PGlite.create();
    runs.push(await run('PGlite', pgliteSyncStore(db), async (text) => (await db.query<Record<string, unknown>>(text)).rows));
    await db.close();
  }
  printMedians('PGlite', runs);
}
if (canRunPostgres()) {
  const server = await startPostgres();
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 10 });
  try {
    const runs: RunFigures[] = [];
    for (let i = 0; i < REPEAT; i++) {
      // Each run on an empty table, as PGlite's runs are.
      await pool.query('DROP TABLE IF EXISTS engram_sync_changes, engram_sync_devices, engram_sync_spaces CASCADE').catch(() => undefined);
      runs.push(await run('Postgres', postgresSyncStore(pool), async (text) => (await pool.query(text)).rows));
    }
    printMedians('Postgres', runs);
  } finally {
    await pool.end();
    server.stop();
  }
} else console.log('Postgres: skipped (initdb/pg_ctl not found)');
