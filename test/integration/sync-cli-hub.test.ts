import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import { createHubClient } from '../../src/replication/hub-client.js';
import { createSyncKey } from '../../src/replication/sync-key.js';
import { syncRound } from '../../src/replication/sync-round.js';
import { MemoryReplica } from '../support/memory-replica.js';

/**
 * `npx engram hub`: the sync hub on PGlite in a folder, run as the package's
 * bin runs it. And the browser bundles stay free of the hub's database
 * clients.
 *
 * Needs dist/ (npx tsup).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(root, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin.engram);
const folders: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function hub(args: string[]): Promise<{ child: ChildProcess; url: string; token: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'hub', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr!.on('data', (d) => (err += String(d)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += String(d);
      const url = /listening on (\S+) /.exec(out)?.[1];
      const token = /token (\S+)/.exec(out)?.[1];
      if (url && token) resolve({ child, url, token, exited });
    });
    void exited.then((code) => reject(Object.assign(new Error(`engram hub exited (${code}): ${err}`), { code, err })));
  });
}

const key = await createSyncKey({ secret: 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS' });

describe('npx engram hub', () => {
  it('serves a space on loopback that two devices sync through, keeps its token and data across a restart, and refuses other tokens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-hub-'));
    folders.push(dir);
    const first = await hub(['--dir', dir, '--port', '0']);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const client = (url: string, token: string) => createHubClient({ url, headers: { authorization: `Bearer ${token}` }, retries: 0 });
    const phone = new MemoryReplica('phone');
    phone.put('fact', 'f1', { text: 'kept by the dev hub' });
    await syncRound({ replica: phone, client: client(first.url, first.token), key, space: 'default' });

    const refused = await syncRound({ replica: new MemoryReplica('x'), client: client(first.url, 'not-the-token-at-all'), key, space: 'default' }).catch((e: unknown) => e);
    expect((refused as SyncError).reason).toBe('unauthorized');
    // The generated token is kept for this user only.
    expect(statSync(join(dir, 'token')).mode & 0o077).toBe(0);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = await hub(['--dir', dir, '--port', '0']);
    expect(second.token).toBe(first.token);
    const laptop = new MemoryReplica('laptop');
    await syncRound({ replica: laptop, client: client(second.url, second.token), key, space: 'default' });
    expect(laptop.live()).toEqual(phone.live());
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('without --dir prints what it needs and exits with code 2', async () => {
    const error = (await hub([]).catch((e: unknown) => e)) as { code: number; err: string };
    expect(error.code).toBe(2);
    expect(error.err).toContain('--dir is required');
  });
});

describe('the browser bundles', () => {
  it('dist/index.js and dist/engine.worker.js never import PGlite or pg (only engram/server and the CLI know of them)', () => {
    const graph = (entry: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(entry)) return seen;
      seen.add(entry);
      const text = readFileSync(entry, 'utf8');
      for (const match of text.matchAll(/(?:from\s*|import\s*\(\s*|import\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
        const next = join(dirname(entry), match[1]!);
        if (existsSync(next)) graph(next, seen);
      }
      return seen;
    };
    for (const entry of ['dist/index.js', 'dist/engine.worker.js']) {
      const files = [...graph(join(root, entry))];
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        expect(text, file).not.toMatch(/@electric-sql\/pglite/);
        expect(text, file).not.toMatch(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']pg["']/);
      }
    }
    // The CLI loads PGlite only when `hub` runs, and leaves it to the app's install.
    expect(readFileSync(join(root, 'dist/cli/engram.js'), 'utf8')).toMatch(/import\(["']@electric-sql\/pglite["']\)/);
  });
});
