import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { StoreLockedError } from '../../errors.js';

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

/**
 * One process owns a durable store at a time: a lock file created with
 * O_EXCL records its pid. A lock left by a process that no longer exists
 * (killed, crashed) is stale and taken over; a live owner means
 * StoreLockedError. Returns the release function.
 */
export function acquireLock(path: string, directory: string): () => void {
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(me), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        try {
          unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      };
      // A process that exits without closing the memory frees the store too (SIGKILL cannot; the next open sees a stale lock).
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(path);
    if (owner && owner.host === me.host && isAlive(owner.pid)) {
      const who = owner.pid === process.pid ? `this process (pid ${owner.pid})` : `process ${owner.pid}`;
      throw new StoreLockedError(
        `The engram store in "${directory}" is open in ${who} since ${owner.since}. One process owns a store at a time: close that memory (or stop that process), or give this one its own directory.`,
        { directory, ...owner },
      );
    }
    if (owner && owner.host !== me.host) {
      throw new StoreLockedError(
        `The engram store in "${directory}" is locked by process ${owner.pid} on host "${owner.host}". If that host no longer uses it, delete "${path}".`,
        { directory, ...owner },
      );
    }
    // Stale (its process is gone) or unreadable (a crash between create and write): take it over.
    try {
      unlinkSync(path);
    } catch {
      // Someone else removed it first; try again.
    }
  }
  throw new StoreLockedError(`Could not lock the engram store in "${directory}": other processes keep taking it. Try again.`, {
    directory,
    pid: 0,
    host: me.host,
    since: me.since,
  });
}

function readOwner(path: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? { pid: owner.pid, host: String(owner.host ?? ''), since: String(owner.since ?? '') } : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
