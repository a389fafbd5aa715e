import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreLockedError } from '../../src/errors.js';
import { acquireLock } from '../../src/store/durable/store-lock.js';

/**
 * What a durable store's LOCK tells a process that wants the store (issue
 * 46, item 3); store-lock-race.test.ts races real processes for it.
 */
const root = mkdtempSync(join(tmpdir(), 'engram-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
function lockIn(): { folder: string; path: string } {
  const folder = mkdtempSync(join(root, `${++folders}-`));
  return { folder, path: join(folder, 'LOCK') };
}
/** The pid of a process that has exited. */
let dead: number | undefined;
function deadPid(): number {
  dead ??= spawnSync(process.execPath, ['-e', '']).pid!;
  return dead;
}
const ownerText = (pid: number, extra: Record<string, unknown> = {}) => JSON.stringify({ pid, host: hostname(), since: '2020-01-01T00:00:00.000Z', ...extra });

describe('the store lock', () => {
  it('is a whole owner record from the moment it exists, and is gone after release', () => {
    const { folder, path } = lockIn();
    const release = acquireLock(path, folder);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(readdirSync(folder)).toEqual(['LOCK']);
    expect(() => acquireLock(path, folder)).toThrow(StoreLockedError);
    release();
    expect(readdirSync(folder)).toEqual([]);
  });

  it('never takes an empty or unreadable LOCK as stale: StoreLockedError, the file untouched', () => {
    for (const text of ['', '{"pi', 'not a lock']) {
      const { folder, path } = lockIn();
      writeFileSync(path, text);
      const error = (() => {
        try {
          acquireLock(path, folder);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(StoreLockedError);
      expect((error as Error).message).toContain(`delete "${path}"`);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('takes over a lock whose owner is gone: a dead pid, or this pid in an earlier process', () => {
    for (const text of [ownerText(deadPid()), ownerText(process.pid, { token: 'an earlier process with this pid' })]) {
      const { folder, path } = lockIn();
      writeFileSync(path, text);
      const release = acquireLock(path, folder);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
      release();
    }
  });

  it('leaves a live owner, an older lock naming this pid, and an owner on another host alone', () => {
    for (const text of [ownerText(process.ppid), ownerText(process.pid), JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, since: '' })]) {
      const { folder, path } = lockIn();
      writeFileSync(path, text);
      expect(() => acquireLock(path, folder)).toThrow(StoreLockedError);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('is not held up by what killed contenders left: a takeover claim and temporary files', () => {
    const { folder, path } = lockIn();
    const stale = ownerText(deadPid());
    writeFileSync(path, stale);
    const claim = `${path}.break-${createHash('sha256').update(stale).digest('hex').slice(0, 32)}`;
    writeFileSync(claim, ownerText(deadPid(), { token: 'a claimer killed mid-takeover' }));
    writeFileSync(`${path}.tmp-${deadPid()}-x`, '');
    const release = acquireLock(path, folder);
    expect(readdirSync(folder)).toEqual(['LOCK']);
    release();
  });
});
