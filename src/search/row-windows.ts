import type { DocTable } from './doc-table.js';
import { NO_TIMES } from './index-doc.js';
import { encodeMatch, matchWindows, type TimeWindows } from './time-windows.js';
import type { UserIndex } from './user-index.js';

/*
 * Which of a user's rows fall in a query's time windows (recall's time
 * questions), read from the rows' signals in one pass and, for a row whose
 * text gives times, from those times without building its document.
 */

/** How many of `user`'s memories (archived ones aside) are inside each of `windows`. */
export function countInWindows(user: UserIndex, docs: DocTable, windows: TimeWindows): number[] {
  const counts = windows.windows.map(() => 0);
  const { archived, dated } = user.signals;
  const each = windows.windows.map((window) => ({ windows: [window], timeZone: windows.timeZone }));
  forEachInWindows(user, docs, windows, (row, window) => {
    if (archived[row] !== 0) return;
    counts[window]!++;
    // The first window it is in is counted; a window after it may hold it too (by its time, or a time its text gives).
    for (let i = window + 1; i < each.length; i++) {
      const times = dated[row] === 1 ? (docs.timesOf(user.vectors.idAt(row)) ?? NO_TIMES) : NO_TIMES;
      if (matchWindows(each[i]!, user.signals.createdAt[row]!, sessionAt(user, row), times)) counts[i]!++;
    }
  });
  return counts;
}

/**
 * For each of `user`'s rows, which window it is in (encodeMatch: 0 for
 * none), from its signals (own time, session) and, for a row whose text
 * gives times, those times (read without building its document).
 */
export function windowMarks(user: UserIndex, docs: DocTable, windows: TimeWindows): Uint16Array {
  const marks = new Uint16Array(user.vectors.size);
  forEachInWindows(user, docs, windows, (row, window, by) => (marks[row] = encodeMatch({ window, by })));
  return marks;
}

/** Visits each of `user`'s rows inside `windows` with the first window it is in (matchWindows), reading rows' signals in one pass. */
function forEachInWindows(user: UserIndex, docs: DocTable, windows: TimeWindows, visit: (row: number, window: number, by: 'createdAt' | 'mention' | 'session') => void): void {
  const n = user.vectors.size;
  const { createdAt, session, dated } = user.signals;
  const list = windows.windows;
  // Per window, its sessions as codes (a mask), or its bounds.
  const masks = list.map((w) => (w.sessions ? user.signals.sessionNames.map((name, code) => code > 0 && w.sessions!.has(name)) : undefined));
  const from = list.map((w) => w.from);
  const to = list.map((w) => w.to);
  for (let row = 0; row < n; row++) {
    const at = createdAt[row]!;
    const code = session[row]!;
    let found = -1;
    for (let i = 0; i < list.length; i++) {
      const mask = masks[i];
      if (mask ? code !== 0 && mask[code] === true : at >= from[i]! && at < to[i]!) {
        found = i;
        break;
      }
    }
    if (found >= 0) visit(row, found, masks[found] ? 'session' : 'createdAt');
    else if (dated[row] === 1) {
      const match = matchWindows(windows, at, sessionAt(user, row), docs.timesOf(user.vectors.idAt(row)) ?? NO_TIMES);
      if (match) visit(row, match.window, match.by);
    }
  }
}

function sessionAt(user: UserIndex, row: number): string | undefined {
  const code = user.signals.session[row]!;
  return code === 0 ? undefined : user.signals.sessionNames[code];
}
