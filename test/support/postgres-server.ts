import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real Postgres server for the hub's tests: Debian's postgresql package
 * (`initdb` and `pg_ctl`, installed by .ci/run through
 * scripts/ensure-postgres.sh), a cluster in a temporary folder, listening
 * on a free loopback port only, stopped and removed by `stop()`. Postgres
 * refuses to run as root, so as root the cluster belongs to the `postgres`
 * user (runuser).
 */
export interface PostgresServer {
  connectionString: string;
  port: number;
  stop(): void;
}

const BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin', '/usr/local/bin', '/usr/bin'];

/** Where initdb and pg_ctl are, or undefined when Postgres is not installed. */
export function postgresBinaries(): { initdb: string; pgCtl: string } | undefined {
  for (const dir of BIN_DIRS) {
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return { initdb: join(dir, 'initdb'), pgCtl: join(dir, 'pg_ctl') };
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const bins = postgresBinaries();
  if (!bins) throw new Error('Postgres is not installed (apt-get install postgresql, or bash scripts/ensure-postgres.sh)');
  const root = mkdtempSync(join(tmpdir(), 'engram-pg-'));
  chmodSync(root, 0o777);
  const asRoot = process.getuid?.() === 0;
  const run = (bin: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  };
  const data = join(root, 'data');
  run(bins.initdb, ['-D', data, '-A', 'trust', '-U', 'engram', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  // Loopback only, the socket in the temporary folder; fsync off: the tests kill processes, not the machine.
  run(bins.pgCtl, ['-D', data, '-l', join(root, 'log'), '-w', '-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`, 'start']);
  let stopped = false;
  return {
    connectionString: `postgres://engram@127.0.0.1:${port}/postgres`,
    port,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run(bins.pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** Whether `runuser` exists where it is needed (as root). */
export function canRunPostgres(): boolean {
  if (!postgresBinaries()) return false;
  if (process.getuid?.() !== 0) return true;
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
