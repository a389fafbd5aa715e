import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../src/replication/hub-client.js';
import { sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../../src/replication/sync-key.js';
import { syncRound } from '../../src/replication/sync-round.js';
import { MemoryReplica } from '../support/memory-replica.js';
import { canRunPostgres, startPostgres, type PostgresServer } from '../support/postgres-server.js';

/**
 * The hub process killed (SIGKILL) in the middle of a push, on PGlite and on
 * a real Postgres server: once inside the push's transaction (nothing
 * committed), once after COMMIT but before the answer (everything committed,
 * the device never hears). A new hub process starts on the same port and
 * database; the device's client retries. Each row must be stored exactly
 * once, and another device must receive each change once.
 *
 * Needs dist/ (npx tsup): the hub runs from the built package, as an app mounts it.
 */
const CHILD = fileURLToPath(new URL('../support/sync-hub-child.mjs', import.meta.url));
const SPACE = 'space-killed';
const key = await createSyncKey({ secret: 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS' });
const headers = { authorization: 'Bearer child-token' };

interface Hub {
  process: ChildProcess;
  port: number;
  /** Resolves when the child prints `line`. */
  printed(line: string): Promise<void>;
  exited: Promise<void>;
}

function startHub(backend: 'pg' | 'pglite', target: string, port: number, pause?: string): Promise<Hub> {
  const child = spawn(process.execPath, [CHILD, backend, target, String(port), ...(pause ? [pause] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stderr!.on('data', (data) => (err += String(data)));
  child.stdout!.on('data', (data) => {
    out += String(data);
    for (const waiter of [...waiters]) if (out.split('\n').includes(waiter.line)) waiter.resolve();
  });
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.split('\n').includes(line)) return resolve();
      waiters.push({ line, resolve });
      void exited.then(() => reject(new Error(`hub child exited before printing "${line}": ${err}`)));
    });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /^listening (\d+)$/m.exec(out);
      if (match) resolve({ process: child, port: Number(match[1]), printed, exited });
    });
    void exited.then(() => reject(new Error(`hub child exited at start: ${err}`)));
  });
}

const backends = [
  { name: 'PGlite', backend: 'pglite' as const, skip: false },
  { name: 'Postgres', backend: 'pg' as const, skip: !canRunPostgres() },
];
if (!canRunPostgres()) console.warn('sync-hub-killed.test.ts: Postgres tests SKIPPED: initdb/pg_ctl not found (apt-get install postgresql, or bash scripts/ensure-postgres.sh)');

describe.each(backends)('a hub on $name killed mid-push', ({ backend, skip }) => {
  let target: string;
  let server: PostgresServer | undefined;
  let folder: string | undefined;
  const running: Hub[] = [];
  beforeAll(async () => {
    if (skip) return;
    if (backend === 'pg') {
      server = await startPostgres();
      target = server.connectionString;
    } else {
      folder = mkdtempSync(join(tmpdir(), 'engram-hub-killed-'));
      target = join(folder, 'pgdata');
    }
  });
  afterAll(async () => {
    for (const hub of running) hub.process.kill('SIGKILL');
    await Promise.all(running.map((hub) => hub.exited));
    server?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const cases = [
    { pause: 'before-commit', stored: 10, skipped: 0 },
    { pause: 'after-commit', stored: 0, skipped: 10 },
  ];
  it.skipIf(skip).each(cases)('killed $pause: the retry stores each row once ($stored stored, $skipped already held)', async ({ pause, stored, skipped }) => {
    const first = await startHub(backend, target, 0, pause);
    running.push(first);
    const phone = new MemoryReplica(`phone-${pause}`);
    for (let i = 0; i < 10; i++) phone.put('fact', `${pause}-${i}`, { text: `fact ${i}` });
    const rows = await Promise.all((await phone.pendingChanges(100)).map(({ seq, change }) => sealChange(key, { space: SPACE, seq, change })));

    let restarted!: (hub: Hub) => void;
    const second = new Promise<Hub>((resolve) => (restarted = resolve));
    let attempts = 0;
    const client = createHubClient({ url: `http://127.0.0.1:${first.port}/sync`, headers, retries: 5, sleep: async () => void (attempts++, await second) });
    const pushing = client.push({ device: phone.device, keyTag: key.keyTag, spaceTag: await spaceTag(key, SPACE), rows });

    await first.printed('paused');
    first.process.kill('SIGKILL');
    await first.exited;
    const next = await startHub(backend, target, first.port);
    running.push(next);
    restarted(next);

    expect(await pushing).toEqual({ stored, skipped, through: 10 });
    expect(attempts).toBe(1);

    // Another device gets each change once.
    const reader = new MemoryReplica(`reader-${pause}`);
    await syncRound({ replica: reader, client: createHubClient({ url: `http://127.0.0.1:${next.port}/sync`, headers, retries: 0 }), key, space: SPACE });
    const received = reader.appliedBatches.flatMap((b) => b.changes).filter((c) => c.device === phone.device);
    expect(received.map((c) => c.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `${pause}-${i}`).sort());

    next.process.kill('SIGTERM');
    await next.exited;
  });

  it.skipIf(skip)('the database holds each (device, seq) once after both kills', async () => {
    const query = async (text: string) => {
      if (backend === 'pg') {
        const pool = new pg.Pool({ connectionString: target, max: 1 });
        try {
          return (await pool.query(text)).rows;
        } finally {
          await pool.end();
        }
      }
      const db = await PGlite.create(target);
      try {
        return (await db.query(text)).rows;
      } finally {
        await db.close();
      }
    };
    const rows = await query(`SELECT device, count(*)::int AS n, count(DISTINCT seq)::int AS seqs FROM engram_sync_changes GROUP BY device ORDER BY device`);
    expect(rows).toEqual([
      { device: 'phone-after-commit', n: 10, seqs: 10 },
      { device: 'phone-before-commit', n: 10, seqs: 10 },
    ]);
  });
});
