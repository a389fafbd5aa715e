/**
 * Civil (calendar) time without a time zone: a wall-clock date and time
 * written as the milliseconds the same wall clock would be in UTC
 * (`Date.UTC(year, month - 1, day, hour…)`), called *local ms* here. UTC has
 * no daylight saving, so calendar arithmetic on local ms ("three days
 * before", "the month before") is exact; zone.ts turns local ms into
 * instants of a given zone and back.
 */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Local ms of a calendar date and time (month 1–12; out-of-range parts roll over, as Date.UTC does). */
export function localMs(year: number, month: number, day: number, hour = 0, minute = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute);
}

/** Local ms of the start of the day holding `local`. */
export function startOfDay(local: number): number {
  return Math.floor(local / DAY_MS) * DAY_MS;
}

/** Day of the week of `local`: 0 is Sunday … 6 is Saturday. */
export function weekdayOf(local: number): number {
  return new Date(local).getUTCDay();
}

/** Local ms of the Monday that starts the week holding `local` (weeks start on Monday, as ISO 8601 and time-mentions.ts). */
export function startOfWeek(local: number): number {
  return startOfDay(local) - ((weekdayOf(local) + 6) % 7) * DAY_MS;
}

/** Local ms of the first day of the month holding `local`, moved by `months`. */
export function startOfMonth(local: number, months = 0): number {
  const d = new Date(local);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
}

/** Local ms of January 1 of the year holding `local`, moved by `years`. */
export function startOfYear(local: number, years = 0): number {
  return Date.UTC(new Date(local).getUTCFullYear() + years, 0, 1);
}

/** The calendar parts of `local`. */
export function partsOf(local: number): { year: number; month: number; day: number; hour: number; minute: number } {
  const d = new Date(local);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

/** A calendar period: whole days, ISO weeks, months or years. */
export type Grain = 'day' | 'week' | 'month' | 'year';

/** The period of `grain` holding `local`, moved by `offset` periods: [from, to) in local ms. */
export function periodOf(local: number, grain: Grain, offset = 0): { from: number; to: number } {
  switch (grain) {
    case 'day': {
      const from = startOfDay(local) + offset * DAY_MS;
      return { from, to: from + DAY_MS };
    }
    case 'week': {
      const from = startOfWeek(local) + offset * 7 * DAY_MS;
      return { from, to: from + 7 * DAY_MS };
    }
    case 'month':
      return { from: startOfMonth(local, offset), to: startOfMonth(local, offset + 1) };
    case 'year':
      return { from: startOfYear(local, offset), to: startOfYear(local, offset + 1) };
  }
}
