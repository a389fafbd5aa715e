/**
 * `npx engram hub`: a sync hub for development, the demo and a single
 * machine: the sync handler on PGlite (Postgres in WebAssembly, kept in
 * `--dir`), served by Node's http.
 *
 *   engram hub --dir ./hub [--port 8787] [--host 127.0.0.1] [--token <t>] [--space <name>]
 *
 * Its authorization is for development only: one bearer token, which maps
 * to one space. Without `--token`, a random one is made on first start,
 * kept in `<dir>/token` (readable by this user only) and printed. It
 * listens on loopback unless `--host` says otherwise. A real deployment
 * mounts `createSyncHandler` in the app's own server, with the app's own
 * `authorize` (docs/sync.md).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { toNodeHandler } from '../llm/node-adapter.js';
import { createSyncHandler } from '../hub/sync-handler.js';
import { pgliteSyncStore } from '../hub/sync-store.js';

export const HUB_USAGE = 'engram hub --dir <folder> [--port 8787] [--host 127.0.0.1] [--token <token>] [--space <name>]';

class HubUsageError extends Error {}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Starts the hub; resolves once it listens, with a `close()` that stops it and closes the database (also run on SIGINT/SIGTERM). */
export async function runHub(args: string[], log: (line: string) => void = (line) => console.log(line)): Promise<{ url: string; close(): Promise<void> }> {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, space: { type: 'string' } },
  });
  if (!values.dir) throw new HubUsageError(`--dir is required (where the hub keeps its database)\nusage: ${HUB_USAGE}`);
  const port = Number(values.port ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new HubUsageError(`--port must be a port number, not "${values.port}"`);
  const host = values.host ?? '127.0.0.1';
  const space = values.space ?? 'default';
  const dir = resolve(values.dir);
  mkdirSync(dir, { recursive: true });
  const token = values.token ?? devToken(join(dir, 'token'));
  if (token.length < 16) throw new HubUsageError('--token must be at least 16 characters');

  let PGlite: typeof import('@electric-sql/pglite').PGlite;
  try {
    ({ PGlite } = await import('@electric-sql/pglite'));
  } catch {
    throw new HubUsageError('the hub keeps its data in PGlite: npm install @electric-sql/pglite');
  }
  const db = await PGlite.create(join(dir, 'pgdata'));
  const expected = digest(`Bearer ${token}`);
  const handler = createSyncHandler({
    store: pgliteSyncStore(db),
    // Compared as digests, in constant time: the comparison does not tell how much of a guess was right.
    authorize: (request) => (timingSafeEqual(digest(request.headers.get('authorization') ?? ''), expected) ? space : null),
    onError: (error, { operation }) => console.error(`engram hub: ${operation} failed:`, error),
  });
  const server = createServer(toNodeHandler(handler));
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/`;
  log(`engram hub: listening on ${url} (PGlite in ${join(dir, 'pgdata')})`);
  log(`engram hub: space "${space}", token ${token}`);
  log(`engram hub: devices use { url: '${url}', headers: { authorization: 'Bearer <token>' } }`);
  if (!LOOPBACK.has(host)) log(`engram hub: WARNING: listening on ${host}, not loopback: anyone who can reach it and learns the token can read and write the space's (encrypted) rows`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await db.close();
    })());
  const onSignal = () => void close().then(() => process.exit(0));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { url, close };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The folder's dev token: made once, kept readable by this user only. */
function devToken(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** `engram hub ...` from the command line: a usage error is one line and exit code 2. */
export function runHubCommand(args: string[]): Promise<void> {
  return runHub(args).then(
    () => undefined,
    (error: unknown) => {
      if (error instanceof HubUsageError) {
        console.error(`engram hub: ${error.message}`);
        process.exitCode = 2;
        return;
      }
      throw error;
    },
  );
}
