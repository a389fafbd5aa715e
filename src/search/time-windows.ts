import type { TimeMention } from '../schema/time-mention.js';
import { periodOf } from '../time/civil.js';
import { instantOf, localOf } from '../time/zone.js';

/**
 * A window a query names over the memories' times (recall/query-times.ts):
 * instants [from, to), or, for a reference to sessions ("our first
 * conversation"), those sessions' memories.
 */
export interface QueryWindow {
  /** The words of the query that named it ("on May 8th", "two sessions ago"). */
  text: string;
  /** Epoch ms, from inclusive, to exclusive (±Infinity for an open side); a session window: its sessions' first and last time, to inclusive. */
  from: number;
  to: number;
  /** A session window: the ids of its sessions (a memory is in it by its `sessionId`). */
  sessions?: ReadonlySet<string>;
}

/** A query's windows, and the zone a memory's relative times are placed in (undefined: the runtime's). */
export interface TimeWindows {
  windows: readonly QueryWindow[];
  timeZone: string | undefined;
}

/** Which window a memory is in, and by what: its own time, a time its text gives, or its session. */
export interface WindowMatch {
  window: number;
  by: 'createdAt' | 'mention' | 'session';
}

/**
 * The first of `windows` a memory is in: by its session, then by its own
 * time (`createdAt`), then by a time its text gives relative to it
 * (`times`, time/time-mentions.ts: "yesterday" in a turn of May 9 is May
 * 8), which must lie wholly inside the window ("last week" is not in a
 * window of one day, "yesterday" is in "last week"). The one rule both the
 * search's rows and a document follow, so bounds and scores agree.
 */
export function matchWindows(w: TimeWindows, createdAt: number, session: string | undefined, times: readonly TimeMention[]): WindowMatch | undefined {
  const { windows } = w;
  for (let i = 0; i < windows.length; i++) {
    const window = windows[i]!;
    if (window.sessions) {
      if (session !== undefined && window.sessions.has(session)) return { window: i, by: 'session' };
    } else if (createdAt >= window.from && createdAt < window.to) return { window: i, by: 'createdAt' };
  }
  if (times.length === 0) return undefined;
  const local = localOf(createdAt, w.timeZone);
  for (let i = 0; i < windows.length; i++) {
    const window = windows[i]!;
    if (window.sessions) continue;
    for (const time of times) {
      const period = periodOf(local, time.grain, time.offset);
      if (instantOf(period.from, w.timeZone) >= window.from && instantOf(period.to, w.timeZone) <= window.to) return { window: i, by: 'mention' };
    }
  }
  return undefined;
}

/** A match as one number for a typed array (0: none). */
export function encodeMatch(match: WindowMatch | undefined): number {
  return match === undefined ? 0 : 1 + match.window * 3 + BY.indexOf(match.by);
}

export function decodeMatch(code: number): WindowMatch | undefined {
  return code === 0 ? undefined : { window: Math.floor((code - 1) / 3), by: BY[(code - 1) % 3]! };
}

const BY: readonly WindowMatch['by'][] = ['createdAt', 'mention', 'session'];
