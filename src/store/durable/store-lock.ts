import { createHash, randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { StorageError, StoreLockedError } from '../../errors.js';

interface LockOwner {
  pid: number;
  host: string;
  since: string;
  /** Unique to one acquisition: tells this lock from an earlier one of the same pid. */
  token?: string;
}

/** A lock file as read: its exact text (what a takeover compares) and its owner, null when the text is not an owner. */
interface LockFile {
  text: string;
  owner: LockOwner | null;
}

/** Looks at a LOCK that keeps changing or is being taken over: each look after the first waits RETRY_MS. */
const ATTEMPTS = 200;
const RETRY_MS = 1;
/** Looks at a LOCK that is unreadable (being written without hard links, or by an older engram; or not engram's) before giving up. */
const UNREADABLE_ATTEMPTS = 10;

/**
 * The tokens of the locks this process holds, shared by every copy of this
 * module in the process (an ESM and a CJS build loaded side by side): a LOCK
 * naming this pid is this process's only if its token is here.
 */
const held: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for('engram.heldStoreLocks')] ??= new Set<string>()) as Set<string>;

/**
 * One process owns a durable store at a time. Returns the release function.
 *
 * The LOCK file is never empty or partial: the owner's record (pid, host,
 * time, a token unique to this acquisition) is written whole to a temporary
 * file, flushed, and hard-linked to LOCK, which fails if LOCK exists
 * (link(2) is atomic and exclusive, as O_EXCL is, but publishes a complete
 * file). On a file system without hard links, LOCK is created with O_EXCL
 * and its record written in one write; a reader that finds it unreadable
 * waits for it, and never takes it as stale.
 *
 * A LOCK whose owner is provably gone (no process of its pid on this host,
 * or this process's pid without this process holding it) is taken over, and
 * two contenders cannot both take it: see `removeStale`. A live owner, an
 * owner on another host, or a LOCK that stays unreadable means
 * StoreLockedError, and the LOCK is left alone.
 */
export function acquireLock(path: string, directory: string): () => void {
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomUUID() };
  const text = JSON.stringify(me);
  let unreadable = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createWhole(path, text, directory)) {
      held.add(me.token!);
      sweepLeftovers(path);
      return releaser(path, me.token!);
    }
    const found = readLock(path);
    if (found === null) continue; // Released between our create and our read: try again.
    const { owner } = found;
    if (!owner) {
      if (++unreadable < UNREADABLE_ATTEMPTS) {
        sleep(RETRY_MS);
        continue;
      }
      throw new StoreLockedError(
        `The engram store in "${directory}" has a LOCK file engram cannot read ("${path}"): another process may be writing it, or it is not engram's, so engram cannot tell whether the store is in use. Try again; if no process uses this store, delete "${path}".`,
        { directory, pid: 0, host: '', since: '' },
      );
    }
    if (owner.host !== me.host) {
      throw new StoreLockedError(
        `The engram store in "${directory}" is locked by process ${owner.pid} on host "${owner.host}". If that host no longer uses it, delete "${path}".`,
        lockDetails(directory, owner),
      );
    }
    if (!isGone(owner)) {
      const who = owner.pid === process.pid ? `this process (pid ${owner.pid})` : `process ${owner.pid}`;
      throw new StoreLockedError(
        `The engram store in "${directory}" is open in ${who} since ${owner.since}. One process owns a store at a time: close that memory (or stop that process), or give this one its own directory.`,
        lockDetails(directory, owner),
      );
    }
    // Its owner is gone. Unless another process is taking it over right now (then wait for that), it is removed and we try again.
    if (!removeStale(path, found.text, directory)) sleep(RETRY_MS);
  }
  throw new StoreLockedError(`Could not lock the engram store in "${directory}": other processes keep taking it. Try again.`, {
    directory,
    pid: 0,
    host: me.host,
    since: me.since,
  });
}

/**
 * Removes the stale lock whose exact text is `staleText` from `path`, if it
 * is still there. Answers false when another live process is removing it
 * (the caller waits and looks again), true otherwise.
 *
 * Reading a stale LOCK and then deleting it would race: another contender may
 * have replaced it with its own live lock in between, and that one would be
 * deleted. So only the one process that creates the claim file named after
 * the stale text (`<path>.break-<digest>`, created whole and exclusively
 * like LOCK itself) may delete it, and only after reading that LOCK still
 * holds that text. While LOCK holds it nobody else can replace it (create
 * fails while LOCK exists), and a stale text never comes back (its token or
 * time is unique), so a contender that claims it later reads another text
 * and deletes nothing. A claim left by a claimer that died holding it is
 * itself a stale lock on the right to remove, and is removed the same way.
 */
function removeStale(path: string, staleText: string, directory: string): boolean {
  const claim = `${path}.break-${createHash('sha256').update(staleText).digest('hex').slice(0, 32)}`;
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomUUID() };
  if (!createWhole(claim, JSON.stringify(me), directory)) {
    const found = readLock(claim);
    if (found === null) return true; // The claimer finished: look at LOCK again.
    if (!found.owner || found.owner.host !== me.host || !isGone(found.owner)) return false;
    return removeStale(claim, found.text, directory);
  }
  try {
    if (readLock(path)?.text === staleText) unlinkIfPresent(path);
  } finally {
    unlinkIfPresent(claim);
  }
  return true;
}

/** Creates `path` holding `text`, never visible empty or partial; false if it exists. */
function createWhole(path: string, text: string, directory: string): boolean {
  const temp = join(dirname(path), `${basename(path)}.tmp-${process.pid}-${randomUUID()}`);
  try {
    writeFlushed(temp, text, 'wx');
    try {
      linkSync(temp, path);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (!NO_HARD_LINKS.has(code ?? '')) throw error;
    }
    // No hard links here (FAT, some network shares): an exclusive create, its record written in one write.
    try {
      writeFlushed(path, text, 'wx');
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } catch (error) {
    throw new StorageError(`engram could not write its lock file "${path}" (${(error as Error).message}). Check that "${directory}" is writable.`, { directory, path });
  } finally {
    unlinkIfPresent(temp);
  }
}

/** What link(2) answers on a file system that has no hard links. */
const NO_HARD_LINKS: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

function writeFlushed(path: string, text: string, flag: string): void {
  const fd = openSync(path, flag);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The release function of the lock with `token`: deletes LOCK if it is still that lock. */
function releaser(path: string, token: string): () => void {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releasedAtExit.delete(release);
    held.delete(token);
    if (readLock(path)?.owner?.token === token) unlinkIfPresent(path);
  };
  // A process that exits without closing the memory frees the store too (SIGKILL cannot; the next open sees a stale lock).
  releasedAtExit.add(release);
  if (!exitListener) {
    exitListener = () => [...releasedAtExit].forEach((releaseOne) => releaseOne());
    process.on('exit', exitListener);
  }
  return release;
}
/** The locks still held, released by one 'exit' listener (one per lock would pass Node's listener warning limit). */
const releasedAtExit = new Set<() => void>();
let exitListener: (() => void) | undefined;

/**
 * Deletes what killed contenders left beside LOCK: temporary files of
 * processes that are gone, and claims whose claimer is gone (once LOCK is
 * ours, a claim on an earlier lock's text can remove nothing).
 */
function sweepLeftovers(path: string): void {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  const host = hostname();
  for (const name of names) {
    const rest = name.slice(prefix.length);
    const temp = /^(?:.*\.)?tmp-(\d+)-/.exec(rest);
    if (temp) {
      if (!isAlive(Number(temp[1]))) unlinkIfPresent(join(folder, name));
      continue;
    }
    if (!/(?:^|\.)break-[0-9a-f]+$/.test(rest)) continue;
    const owner = readLock(join(folder, name))?.owner;
    if (owner && owner.host === host && isGone(owner)) unlinkIfPresent(join(folder, name));
  }
}

/** The lock file at `path`, or null if there is none. */
function readLock(path: string): LockFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  return { text, owner: parseOwner(text) };
}

function parseOwner(text: string): LockOwner | null {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner> | null;
    if (!owner || typeof owner.pid !== 'number' || !Number.isInteger(owner.pid) || owner.pid <= 0) return null;
    return { pid: owner.pid, host: String(owner.host ?? ''), since: String(owner.since ?? ''), token: typeof owner.token === 'string' ? owner.token : undefined };
  } catch {
    return null;
  }
}

/**
 * Whether the owner of a lock on this host is provably gone: no process has
 * its pid, or its pid is this process's and this process does not hold it
 * (a lock left by an earlier process that had this pid). A lock without a
 * token (an older engram's) naming this pid is taken as this process's.
 */
function isGone(owner: LockOwner): boolean {
  if (owner.pid === process.pid) return owner.token !== undefined && !held.has(owner.token);
  return !isAlive(owner.pid);
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

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function lockDetails(directory: string, owner: LockOwner): { directory: string; pid: number; host: string; since: string } {
  return { directory, pid: owner.pid, host: owner.host, since: owner.since };
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Blocks for `ms` (acquireLock is synchronous): a takeover in another process finishes within a few file operations. */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}
