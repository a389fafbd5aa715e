import { compareHlc, type HlcString } from './hlc.js';

/**
 * The conflict rules every replica applies, as pure functions, so that any
 * replica, given the same changes in any order, ends in the same state.
 *
 * 1. Last writer wins, per record: of two versions of a record, the one with
 *    the later hybrid logical clock is kept whole; clocks order by wall
 *    time, then counter, then device id, so there is never a tie between
 *    two different writes. A delete is a version like any other (a
 *    tombstone): it wins over an earlier put, and a later put wins over it
 *    (the record comes back, as written after the delete).
 *
 *    Example: the phone sets fact F to "lives in Porto" at 10:00:00.000
 *    (clock 10:00:00.000/0/phone); the laptop, offline, sets it to "lives in
 *    Lisbon" at 10:00:00.000 too (…/0/laptop). After both sync, F is "lives
 *    in Porto" on both: same wall time and counter, and "phone" > "laptop".
 *
 * 2. Tombstones are kept until they can no longer matter (`tombstoneFate`):
 *    once every device the space knows has pulled past one, or after the
 *    tombstone TTL. A device that was away longer than the TTL is told to
 *    rejoin (SyncError 'expired'), because it may hold records whose
 *    tombstones are gone.
 *
 * Kinds that merge finer than whole records (per-field profiles, fact
 * retirement) use field-merge.ts; the dedup and cap rules that must hold
 * after a pull use reconcile.ts.
 */

/** A version of a record as the rules see it: its clock, and whether it is a tombstone. */
export interface Version {
  hlc: HlcString;
  deleted: boolean;
}

/** Whether an incoming version replaces the one a replica holds (none held: it always does). The same version again does not. */
export function incomingWins(held: Pick<Version, 'hlc'> | undefined, incoming: Pick<Version, 'hlc'>): boolean {
  return held === undefined || compareHlc(incoming.hlc, held.hlc) > 0;
}

/** The later of two versions (last writer wins). Commutative, associative and idempotent: a join. */
export function lastWriter<T extends Pick<Version, 'hlc'>>(a: T, b: T): T {
  return compareHlc(b.hlc, a.hlc) > 0 ? b : a;
}

/** How long a hub, and a replica, keep a tombstone that some known device has not passed: 30 days. */
export const DEFAULT_TOMBSTONE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * What becomes of a tombstone at `now`:
 * - 'passed': every known device has pulled past it (its cursor is at or
 *   below each one's pulled cursor): no device can still hold the record
 *   it deleted, or push an older version of it, so it can go.
 * - 'expired': older than `ttlMs`: it goes anyway, and devices that had not
 *   passed it must rejoin (the hub retires them: 'expired').
 * - 'keep': otherwise.
 * The hub's SQL compaction applies this same rule (hub/sync-store.ts).
 */
export function tombstoneFate(
  tombstone: { cursor: bigint; storedAt: number },
  space: { pulled: readonly bigint[]; now: number; ttlMs?: number },
): 'passed' | 'expired' | 'keep' {
  if (space.pulled.every((cursor) => cursor >= tombstone.cursor)) return 'passed';
  if (space.now - tombstone.storedAt > (space.ttlMs ?? DEFAULT_TOMBSTONE_TTL_MS)) return 'expired';
  return 'keep';
}
