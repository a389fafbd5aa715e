import { DAY_MS } from './civil.js';

/**
 * Instants and wall clocks in an IANA time zone ("Europe/Lisbon"), through
 * the platform's `Intl` time zone data, or in the runtime's own zone
 * (`timeZone` undefined) through `Date`'s local time: `localOf` gives the
 * wall clock of an instant as local ms (civil.ts), `instantOf` the first
 * instant a wall clock shows. Both take daylight saving into account: a day
 * is 23 or 25 hours long where the clocks change.
 *
 * The runtime's zone is read through `Date` because a runtime's first
 * `Intl.DateTimeFormat` loads its date-format data (tens of milliseconds of
 * the thread, in every worker), and naming the runtime's zone takes one:
 * an engine whose app names no zone would pay it before its first answer.
 * `Date`'s local time is the same time zone data without the formatting.
 */

/** The zone the runtime is in, for apps that name none. Its first call in a runtime loads `Intl`'s date-format data. */
export function runtimeTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The wall clock of `instant` in `timeZone` (undefined: the runtime's zone), as local ms. */
export function localOf(instant: number, timeZone: string | undefined): number {
  return instant + offsetAt(instant, timeZone);
}

/**
 * The first instant whose wall clock in `timeZone` is at or after `local`:
 * the instant the wall clock shows `local`, the earlier of two where the
 * clocks go back, and the moment the clocks jump forward where `local` is
 * skipped (a window from 02:30 on such a day starts at 03:00).
 */
export function instantOf(local: number, timeZone: string | undefined): number {
  // The offsets in force a day either side bound the instants that can show `local` (zones change at most once a day).
  const before = offsetAt(local - DAY_MS, timeZone);
  const after = offsetAt(local + DAY_MS, timeZone);
  const candidates = before === after ? [local - before] : [local - before, local - after].sort((a, b) => a - b);
  for (const instant of candidates) if (localOf(instant, timeZone) === local) return instant;
  if (candidates.length === 1) {
    // The offset a day either side is the same, yet `local` is not shown: two changes within a day; ask around it.
    const exact = local - offsetAt(local - offsetAt(local, timeZone), timeZone);
    if (localOf(exact, timeZone) === local) return exact;
  }
  // Skipped by a jump forward: the first instant past it, between the two candidates.
  let lo = candidates[0]!;
  let hi = candidates[candidates.length - 1]!;
  if (localOf(hi, timeZone) < local) hi += DAY_MS;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localOf(mid, timeZone) >= local) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Milliseconds to add to `instant` for its wall clock in `timeZone` (undefined: the runtime's zone). Cached
 * per zone and UTC day: a day whose two ends have the same offset has it
 * throughout (zones change at most once a day), so matching many memories'
 * times against a window asks `Intl` about each day once.
 */
export function offsetAt(instant: number, timeZone: string | undefined): number {
  const key = timeZone ?? RUNTIME;
  let days = offsets.get(key);
  if (!days) {
    if (offsets.size >= MAX_ZONES) offsets.clear();
    offsets.set(key, (days = new Map()));
  }
  const day = Math.floor(instant / DAY_MS);
  let known = days.get(day);
  if (known === undefined) {
    const start = exactOffset(day * DAY_MS, timeZone);
    known = start === exactOffset(day * DAY_MS + DAY_MS - 1, timeZone) ? start : null;
    if (days.size >= MAX_DAYS) days.clear();
    days.set(day, known);
  }
  return known ?? exactOffset(instant, timeZone);
}

/** The offsets cache's key for the runtime's zone: no IANA name is empty. */
const RUNTIME = '';
const MAX_ZONES = 16;
const MAX_DAYS = 100_000;
/** Per zone and UTC day: the offset all that day, or null on a day the offset changes. */
const offsets = new Map<string, Map<number, number | null>>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function exactOffset(instant: number, timeZone: string | undefined): number {
  if (timeZone === undefined) return runtimeOffset(instant);
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    if (formatters.size >= MAX_ZONES) formatters.clear();
    formatters.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value;
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
  return offsetFromWall(instant, year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** As `exactOffset`, in the runtime's zone: the wall clock `Date` shows for `instant`, to the second as `Intl`'s. */
function runtimeOffset(instant: number): number {
  const at = new Date(instant);
  return offsetFromWall(instant, at.getFullYear(), at.getMonth(), at.getDate(), at.getHours(), at.getMinutes(), at.getSeconds());
}

/** The offset of `instant` whose wall clock (to the second; month from 0) is the one given. */
function offsetFromWall(instant: number, year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const wall = Date.UTC(year, month, day, hour, minute, second);
  // Date.UTC maps years 0–99 to 1900–1999; set the year exactly.
  const exact = new Date(wall);
  exact.setUTCFullYear(year);
  return exact.getTime() - (instant - (((instant % 1000) + 1000) % 1000));
}
