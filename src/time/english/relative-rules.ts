import { DAY_MS, localMs, partsOf, periodOf, startOfDay, weekdayOf, type Grain } from '../civil.js';
import type { LocalWindow } from '../query-parser.js';

/*
 * The rules that read what chrono-node misses or misreads in a question
 * about the past: spans over the last N units, N units back, the week
 * before last, seasons, holidays and a day of the month. dates.ts runs them
 * before chrono.
 */

type Rule = (text: string, now: number) => LocalWindow[];

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  couple: 2, 'a couple of': 2, 'a couple': 2, 'couple of': 2, few: 3, 'a few': 3, several: 3,
};
const AMOUNT = String.raw`(\d{1,4}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const UNIT = String.raw`(days?|weeks?|fortnights?|months?|years?)`;

function amountOf(word: string): number {
  const lower = word.toLowerCase();
  return /^\d+$/.test(lower) ? Number(lower) : (NUMBER_WORDS[lower] ?? 1);
}

function grainOfUnit(unit: string): { grain: Grain; times: number } {
  const u = unit.toLowerCase();
  if (u.startsWith('fortnight')) return { grain: 'week', times: 2 };
  return { grain: u.startsWith('day') ? 'day' : u.startsWith('week') ? 'week' : u.startsWith('month') ? 'month' : 'year', times: 1 };
}

export function* matches(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) yield m;
}

/** "in the past three weeks", "over the last few days", "these past 2 months": from the start of that many units back to now. */
const lastUnits: Rule = (text, now) =>
  [...matches(new RegExp(String.raw`\b(?:(?:in|over|during|within|for|from)\s+)?(?:the|these)\s+(?:last|past|previous)\s+${AMOUNT}\s+${UNIT}\b`, 'gi'), text)].map((m) => {
    const { grain, times } = grainOfUnit(m[2]!);
    const n = amountOf(m[1]!) * times;
    const today = startOfDay(now);
    const from = grain === 'day' ? today - (n - 1) * DAY_MS : grain === 'week' ? today - 7 * n * DAY_MS : grain === 'month' ? addMonths(today, -n) : addMonths(today, -12 * n);
    return { start: m.index, end: m.index + m[0].length, from, to: now + 1 };
  });

/** "over the past week", "in the last month", "during the past year": that long back from now (a plain "last week" is the calendar week). */
const lastUnit: Rule = (text, now) =>
  [...matches(/\b(?:(?:in|over|during|within|for|from)\s+)?(?:the|this)\s+(?:last|past)\s+(day|week|month|year)\b(?!\s+(?:before|of)\b)/gi, text)].map((m) => {
    const unit = m[1]!.toLowerCase();
    const today = startOfDay(now);
    const from = unit === 'day' ? now - DAY_MS : unit === 'week' ? today - 7 * DAY_MS : unit === 'month' ? addMonths(today, -1) : addMonths(today, -12);
    return { start: m.index, end: m.index + m[0].length, from, to: now + 1 };
  });

/** "the week before last", "the month before last", "the year before last". */
const beforeLast: Rule = (text, now) =>
  [...matches(/\b(?:the\s+)?(week|month|year)\s+before\s+last\b/gi, text)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    ...periodOf(now, m[1]!.toLowerCase() as Grain, -2),
  }));

/** "N units back" and "a fortnight ago" (chrono knows neither), from now. */
const unitsBack: Rule = (text, now) =>
  [...matches(new RegExp(String.raw`\b${AMOUNT}\s+${UNIT}\s+(back|ago)\b`, 'gi'), text)]
    .filter((m) => m[3]!.toLowerCase() === 'back' || m[2]!.toLowerCase().startsWith('fortnight'))
    .map((m) => {
      const { grain, times } = grainOfUnit(m[2]!);
      return { start: m.index, end: m.index + m[0].length, ...unitsAgo(now, grain, amountOf(m[1]!) * times) };
    });

/** The period of `grain` that holds the moment `n` of them before `now` ("3 months ago": that month). */
function unitsAgo(now: number, grain: Grain, n: number): { from: number; to: number } {
  const at = grain === 'day' ? now - n * DAY_MS : grain === 'week' ? now - 7 * n * DAY_MS : grain === 'month' ? addMonths(now, -n) : addMonths(now, -12 * n);
  return periodOf(at, grain);
}

/** `local` moved by whole months, its day kept where the month has it (the last day otherwise). */
export function addMonths(local: number, months: number): number {
  const { year, month, day, hour, minute } = partsOf(local);
  const last = new Date(Date.UTC(year, month - 1 + months + 1, 0)).getUTCDate();
  return localMs(year, month + months, Math.min(day, last), hour, minute);
}

const SEASONS: Record<string, number> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 };

/** Seasons (northern hemisphere, by months: spring March–May, summer June–August, autumn September–November, winter December–February). */
const seasons: Rule = (text, now) =>
  [...matches(/\b(?:(last|this|past|previous)\s+)?(spring|summer|fall|autumn|winter)(?:\s+(?:of\s+)?((?:19|20)\d\d))?\b/gi, text)].flatMap((m) => {
    const [, which, name, year] = m;
    // "fall" is a verb too: only with a year or a qualifier.
    if (name!.toLowerCase() === 'fall' && !which && !year) return [];
    const first = SEASONS[name!.toLowerCase()]!;
    const nowYear = partsOf(now).year;
    let from: number;
    if (year) from = first === 12 ? localMs(Number(year) - 1, 12, 1) : localMs(Number(year), first, 1);
    else {
      // The latest such season that has begun by now; "last" one before the season now, if now is in it.
      from = localMs(nowYear, first, 1);
      while (from > now) from = addMonths(from, -12);
      if (which && /last|past|previous/i.test(which) && now < addMonths(from, 3)) from = addMonths(from, -12);
    }
    return [{ start: m.index, end: m.index + m[0].length, from, to: addMonths(from, 3), ...(year ? {} : { yearImplied: !which }) }];
  });

const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** "on the 18th", "Saturday the 8th": that day of the latest month that has had it by now (and where it is that weekday). */
const dayOfMonth: Rule = (text, now) =>
  [...matches(/\b(?:on\s+(?:(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s*,?\s+)?|(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s*,?\s+)the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\b)/gi, text)].flatMap((m) => {
    const day = Number(m[3]);
    const name = (m[1] ?? m[2])?.toLowerCase();
    if (day < 1 || day > 31) return [];
    const today = partsOf(now);
    for (let back = 0; back < 24; back++) {
      const from = localMs(today.year, today.month - back, day);
      if (partsOf(from).day !== day || from > now) continue;
      if (name && WEEKDAY_NAMES[weekdayOf(from)] !== name) continue;
      return [{ start: m.index, end: m.index + m[0].length, from, to: from + DAY_MS }];
    }
    return [];
  });

/** Holidays on fixed days, and Thanksgiving (the fourth Thursday of November): the latest one by now, or the year's when one is given. */
const HOLIDAYS: [RegExp, number, number][] = [
  [/christmas\s+eve/, 12, 24],
  [/christmas(?:\s+day)?|xmas/, 12, 25],
  [/new\s+year'?s\s+eve/, 12, 31],
  [/new\s+year'?s(?:\s+day)?/, 1, 1],
  [/valentine'?s(?:\s+day)?/, 2, 14],
  [/halloween/, 10, 31],
  [/(?:the\s+)?(?:fourth|4th)\s+of\s+july|independence\s+day/, 7, 4],
  [/thanksgiving(?:\s+day)?/, 11, 0],
];
const holidays: Rule = (text, now) =>
  [...matches(/\b(?:(last|this)\s+)?(christmas\s+eve|christmas(?:\s+day)?|xmas|new\s+year'?s\s+eve|new\s+year'?s(?:\s+day)?|valentine'?s(?:\s+day)?|halloween|(?:the\s+)?(?:fourth|4th)\s+of\s+july|independence\s+day|thanksgiving(?:\s+day)?)(?:\s*,?\s+((?:19|20)\d\d))?\b/gi, text)].flatMap((m) => {
    const name = m[2]!.toLowerCase();
    const [, month, fixed] = HOLIDAYS.find(([pattern]) => new RegExp(`^(?:${pattern.source})$`).test(name)) ?? [];
    if (!month) return [];
    const dayIn = (year: number) => {
      if (fixed) return localMs(year, month, fixed);
      const first = localMs(year, 11, 1);
      return first + (((4 - weekdayOf(first) + 7) % 7) + 21) * DAY_MS;
    };
    let year = m[3] ? Number(m[3]) : partsOf(now).year;
    if (!m[3]) while (dayIn(year) > now) year--;
    const from = dayIn(year);
    return [{ start: m.index, end: m.index + m[0].length, from, to: from + DAY_MS, ...(m[3] || m[1] ? {} : { yearImplied: true }) }];
  });

export const RULES_BEFORE_CHRONO: Rule[] = [lastUnits, lastUnit, beforeLast, unitsBack, seasons, holidays, dayOfMonth];
