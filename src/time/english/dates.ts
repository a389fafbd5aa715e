import { casual } from 'chrono-node/en';
import type { ParsedComponents, ParsedResult } from 'chrono-node';
import { DAY_MS, HOUR_MS, localMs, partsOf, periodOf, startOfDay, startOfMonth, startOfWeek, weekdayOf, type Grain } from '../civil.js';
import { withoutHedges } from '../chrono-amounts.js';
import type { LocalWindow } from '../query-parser.js';
import { addMonths, matches, RULES_BEFORE_CHRONO } from './relative-rules.js';

/**
 * The calendar windows an English question names, read against `now` (the
 * wall clock, local ms: civil.ts): dates, months, years and seasons;
 * spans ("between May 8 and May 20", "since Monday", "in the past three
 * weeks"); days, weeks, months and years counted from now ("167 days ago",
 * "last month", "the week before last"); named days ("last Friday", "on
 * Tuesday", "over the weekend"); and parts of a day ("earlier today",
 * "this morning", "yesterday evening", "last night").
 *
 * chrono-node's English parser reads most of them (its results' known
 * calendar fields say how wide the window is); the rules here add what it
 * misses or misreads for questions about the past: spans over the last N
 * units, seasons, years, "N units back", the week before last, a weekday
 * alone is the latest one before today, a date without its year is the
 * latest one by now, and a month, weekday or time of day alone ("June
 * said…", "I saw the sun", "at night") is not a window.
 */
export function readDates(query: string, now: number): LocalWindow[] {
  const windows: LocalWindow[] = [];
  let masked = query;
  const keep = (window: LocalWindow) => {
    windows.push(window);
    masked = masked.slice(0, window.start) + ' '.repeat(window.end - window.start) + masked.slice(window.end);
  };
  for (const rule of RULES_BEFORE_CHRONO) for (const window of rule(masked, now)) keep(window);
  for (const window of chronoWindows(masked, now)) keep(window);
  for (const window of months(masked, now)) keep(window);
  for (const window of years(masked)) keep(window);
  return withQualifiers(query, joined(query, anchored(query, windows.sort((a, b) => a.start - b.start))).map((w) => narrowed(query, w))).map((w) => withLeadWords(query, w));
}

/**
 * A part of a month, year or season: "early May" and "the beginning of
 * March" its first third (in whole days), "mid-July" and "the middle of"
 * the second, "late 2022" and "the end of" the last; "the first half of"
 * and "the second half of"; "the first week of October" its days 1–7 (…
 * "the fourth week" 22–28, "the last week" its last 7 days).
 */
function narrowed(query: string, window: LocalWindow): LocalWindow {
  const days = Math.round((window.to - window.from) / DAY_MS);
  if (!Number.isFinite(days) || days < 28) return window;
  const before = query.slice(0, window.start);
  const m =
    /\b(?:the\s+)?(?:very\s+)?(beginning|start|middle|end)\s+of\s+(?:the\s+)?$/i.exec(before) ??
    /\b(early|mid|late)\s*-?\s*(?:in\s+)?$/i.exec(before) ??
    /\b(?:the\s+)?(first|second)\s+half\s+of\s+$/i.exec(before) ??
    /\b(?:the\s+)?(first|second|third|fourth|last)\s+week\s+of\s+$/i.exec(before);
  if (!m) return window;
  const word = m[1]!.toLowerCase();
  const at = (fromDay: number, toDay: number) => ({ ...window, start: m.index, from: window.from + fromDay * DAY_MS, to: window.from + toDay * DAY_MS });
  // Whole months split by months where they divide (a year's halves are January–June and July–December).
  const months = partsOf(window.from).day === 1 && partsOf(window.to).day === 1 ? (partsOf(window.to).year - partsOf(window.from).year) * 12 + partsOf(window.to).month - partsOf(window.from).month : 0;
  const parts = /half/i.test(m[0]) ? 2 : /week/i.test(m[0]) ? 0 : 3;
  if (parts > 0 && months >= parts && months % parts === 0) {
    const index = word === 'first' || word === 'beginning' || word === 'start' || word === 'early' ? 0 : parts === 2 || word === 'end' || word === 'late' ? parts - 1 : 1;
    const from = addMonths(window.from, (months / parts) * index);
    return { ...window, start: m.index, from, to: addMonths(from, months / parts) };
  }
  const third = Math.round(days / 3);
  if (/half/i.test(m[0])) return word === 'first' ? at(0, Math.round(days / 2)) : at(Math.round(days / 2), days);
  if (/week/i.test(m[0])) {
    if (word === 'last') return at(days - 7, days);
    const n = ['first', 'second', 'third', 'fourth'].indexOf(word);
    return at(7 * n, 7 * n + 7);
  }
  if (word === 'beginning' || word === 'start' || word === 'early') return at(0, third);
  if (word === 'middle' || word === 'mid') return at(third, days - third);
  return at(days - third, days);
}

/** The window's words with the ones that only lead into it ("earlier today", "roughly 3 weeks ago", "back in May"): none of them is what the question is about. */
function withLeadWords(query: string, window: LocalWindow): LocalWindow {
  let start = window.start;
  for (let m = LEAD_WORD.exec(query.slice(0, start)); m; m = LEAD_WORD.exec(query.slice(0, start))) start = m.index;
  return start === window.start ? window : { ...window, start };
}
const LEAD_WORD = /\b(earlier|so far|on|in|at|during|over|of|the|back|around|roughly|approximately|nearly|almost|exactly|just|sometime|some time|first thing)\s+$/i;

/**
 * A time counted from a date rather than from now: "the Sunday before
 * October 25, 2022", "last weekend before April 10", "two days after May 8"
 * (chrono reads the two halves apart): the first half is read again with
 * the date as its now, and the two are one window.
 */
function anchored(query: string, windows: LocalWindow[]): LocalWindow[] {
  const out: LocalWindow[] = [];
  for (let i = 0; i < windows.length; i++) {
    const a = windows[i]!;
    const b = windows[i + 1];
    const link = b && /^\s*(before|after)\s*$/i.exec(query.slice(a.end, b.start));
    if (b && link && b.to - b.from <= DAY_MS) {
      const after = link[1]!.toLowerCase() === 'after';
      // Read against the day itself: "before" counts back from its start, "after" forward from its end.
      const [again] = readDates(query.slice(a.start, a.end), after ? b.to : b.from);
      if (again && again.to - again.from < b.from - a.from + 400 * DAY_MS) {
        out.push({ start: a.start, end: b.end, from: again.from, to: again.to });
        i++;
        continue;
      }
    }
    out.push(a);
  }
  return out;
}

const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * A month after a preposition that chrono leaves ("during May", "before
 * March"): it takes "may" and "march" as months only after "in".
 */
function months(text: string, now: number): LocalWindow[] {
  return [...matches(/\b(?:in|during|since|of|through|throughout|until|till|by|before|after|from|early|mid|late|around)\s*-?\s*(january|february|march|april|may|june|july|august|september|october|november|december)(?:\s*,?\s+((?:19|20)\d\d))?\b(?!\s*\d)/gi, text)].map((m) => {
    const month = MONTH_NAMES.indexOf(m[1]!.toLowerCase()) + 1;
    const start = m.index + m[0].toLowerCase().lastIndexOf(m[1]!.toLowerCase());
    if (m[2]) return { start, end: m.index + m[0].length, from: localMs(Number(m[2]), month, 1), to: localMs(Number(m[2]), month + 1, 1) };
    let from = localMs(partsOf(now).year, month, 1);
    while (from > now) from = addMonths(from, -12);
    return { start, end: m.index + m[0].length, from, to: addMonths(from, 1), yearImplied: true };
  });
}

/** Years alone ("in 2022", "during 2021", "back in 2019"), after chrono took the dates that have one. */
function years(text: string): LocalWindow[] {
  return [...matches(/\b(?:in|during|since|of|throughout|from|for|back in|by|before|after|until|early|mid|late)\s*-?\s*((?:19|20)\d\d)\b(?![-/.:]?\d)/gi, text)].map((m) => {
    const year = Number(m[1]);
    const start = m.index + m[0].length - m[1]!.length;
    return { start, end: start + 4, from: localMs(year, 1, 1), to: localMs(year + 1, 1, 1) };
  });
}

const PARTS: Record<string, [number, number]> = {
  // [from hour, to hour) of the day; night runs into the next morning.
  morning: [5, 12],
  noon: [11, 14],
  afternoon: [12, 18],
  evening: [17, 24],
  night: [18, 29],
};

/** chrono's results as windows: the known calendar fields say how wide. */
function chronoWindows(masked: string, now: number): LocalWindow[] {
  // The amount after a hedge word is misread (chrono-amounts.ts); "N units back" was read above.
  let input = withoutHedges(masked);
  // "the evening of 7 July", "the week of October 9": chrono drops the date; read the date alone and widen or narrow it after.
  const partsBefore = new Map<number, { start: number; part: string }>();
  for (const m of matches(/\b(?:the\s+)?(morning|afternoon|evening|night|week|weekend)\s+of\s+(?=\S)/gi, input)) {
    partsBefore.set(m.index + m[0].length, { start: m.index, part: m[1]!.toLowerCase() });
    input = input.slice(0, m.index) + ' '.repeat(m[0].length) + input.slice(m.index + m[0].length);
  }
  // "the end of March": chrono's reading is its last day; the part of the month is read after (`narrowed`).
  input = input.replace(/\b(?:the\s+)?(?:very\s+)?(?:beginning|start|middle|end)\s+of\s+/gi, (m) => ' '.repeat(m.length));
  const out: LocalWindow[] = [];
  for (const result of casual.parse(input, { instant: new Date(now), timezone: 0 })) {
    let window = windowOf(result, now, masked);
    if (!window) continue;
    let start = result.index;
    const part = partsBefore.get(result.index);
    if (part && window.to - window.from === DAY_MS) {
      if (part.part === 'week') window = { ...window, ...periodOf(window.from, 'week') };
      else if (part.part === 'weekend') {
        // The weekend of a Saturday or Sunday is that one; of a weekday, the one that ends its week.
        const saturday = startOfWeek(window.from) + 5 * DAY_MS;
        window = { ...window, from: saturday, to: saturday + 2 * DAY_MS };
      } else {
        const [from, to] = PARTS[part.part]!;
        window = { ...window, from: window.from + from * HOUR_MS, to: window.from + to * HOUR_MS };
      }
      start = part.start;
    }
    // A span chrono read whole ("from June 1st through the 15th") takes its "from" or "between" (not a qualifier).
    const lead = result.end ? /\b(from|between)\s*$/i.exec(masked.slice(0, start)) : null;
    if (lead) start = lead.index;
    out.push({ start, end: result.index + result.text.length, ...window });
  }
  return out;
}

const FULL_WEEKDAY = /\b(sunday|monday|tuesday|wednesday|thursday|friday|saturday)s?\b/i;
const RELATIVE_WORD = /\b(ago|last|next|this|past|previous|before|after|earlier|later|coming)\b/i;
/** A month name with nothing but a preposition can be a name or a verb ("June said…", "did they march"): it needs one of these before it. */
const MONTH_PREPOSITION = /\b(in|during|since|of|last|this|next|early|mid|late|until|till|before|after|from|through|by|throughout|around|about|beginning|end|start|middle)\s*-?\s*$/i;

function windowOf(result: ParsedResult, now: number, text: string): { from: number; to: number; yearImplied?: boolean } | undefined {
  if (result.tags().has('casualReference/now')) return undefined;
  if (!result.end) return windowOfComponents(result.start, result, now, text);
  // A span with its year at the end ("January 29 through February 1, 2023"): the start is in that year, or the one before.
  const end = windowOfComponents(result.end, result, now, text);
  let start = windowOfComponents(result.start, result, now, text);
  if (!start) return undefined;
  if (!end) return start;
  if (start.yearImplied && !end.yearImplied) {
    const { year } = partsOf(end.from);
    const { month, day, hour, minute } = partsOf(start.from);
    const length = start.to - start.from;
    let from = localMs(year, month, day, hour, minute);
    if (from > end.from) from = localMs(year - 1, month, day, hour, minute);
    start = { from, to: from + length };
  }
  if (end.to <= start.from) return undefined;
  return { from: start.from, to: Math.max(end.to, start.to), ...(start.yearImplied && end.yearImplied ? { yearImplied: true } : {}) };
}

function windowOfComponents(
  c: ParsedComponents,
  result: ParsedResult,
  now: number,
  text: string,
): { from: number; to: number; yearImplied?: boolean } | undefined {
  const tags = result.tags();
  const words = result.text.toLowerCase();
  const part = /\blast\s+night\b/.test(words) ? 'night' : [...tags].map((tag) => /^casualReference\/(morning|noon|afternoon|evening|night|tonight)$/.exec(tag)?.[1]).find(Boolean);
  const partOf = (day: number) => {
    if (!part) return { from: day, to: day + DAY_MS };
    const [from, to] = PARTS[part === 'tonight' ? 'night' : part]!;
    return { from: day + from * HOUR_MS, to: day + to * HOUR_MS };
  };
  const dayKnown = c.isCertain('day');
  const monthKnown = c.isCertain('month');
  const yearKnown = c.isCertain('year');
  const casualDay = [...tags].some((tag) => /^casualReference\/(yesterday|today|tomorrow|tonight)$/.test(tag)) || /\blast\s+night\b/.test(words);
  const relative = tags.has('result/relativeDate') || (RELATIVE_WORD.test(words) && /\b(days?|weeks?|months?|years?|weekend)\b/.test(words));
  // A time of day alone ("at 4", "in the morning", "night") names no day.
  if (!dayKnown && !monthKnown && !yearKnown && !c.isCertain('weekday') && !casualDay && !relative && !/\bthis\b/.test(words)) return undefined;
  const date = localMs(c.get('year') ?? partsOf(now).year, c.get('month') ?? 1, c.get('day') ?? 1);

  if (casualDay || (part && /\bthis\b/.test(words) && !c.isCertain('weekday'))) {
    const window = partOf(startOfDay(date));
    // "earlier today", "so far today": up to now.
    const before = text.slice(0, result.index);
    if (/\b(earlier|so far)\s*$/i.test(before) || /\bso far\b/i.test(text.slice(result.index + result.text.length, result.index + result.text.length + 8))) return { from: window.from, to: Math.min(window.to, now + 1) };
    return window;
  }
  if (/\bweekend\b/.test(words)) return weekend(words, now);
  if (relative && !dayKnown && !monthKnown && !yearKnown && /\bweeks?\b/.test(words)) {
    // "this week" (chrono knows no field of it): the week of now.
    return periodOf(/\bnext\b/.test(words) ? now + 7 * DAY_MS : /\blast|past|previous\b/.test(words) ? now - 7 * DAY_MS : now, 'week');
  }
  if (relative && (dayKnown || monthKnown || yearKnown)) {
    const grain: Grain = /\b(weeks?|fortnights?)\b/.test(words) ? 'week' : /\bmonths?\b/.test(words) ? 'month' : /\byears?\b/.test(words) ? 'year' : 'day';
    return periodOf(date, grain);
  }
  if (c.isCertain('weekday') && !dayKnown) {
    // A weekday needs its full name ("sun", "sat" are words too).
    if (!FULL_WEEKDAY.test(words)) return undefined;
    const weekday = c.get('weekday')!;
    let day: number;
    if (/\bnext\b/.test(words)) day = startOfDay(date);
    else if (/\bthis\b/.test(words)) day = startOfWeek(now) + ((weekday + 6) % 7) * DAY_MS;
    else {
      // "last Friday", "on Friday", "Friday": the latest one before today (a question about the past).
      const today = startOfDay(now);
      const back = (weekdayOf(today) - weekday + 7) % 7 || 7;
      day = today - back * DAY_MS;
    }
    return partOf(day);
  }
  if (dayKnown && monthKnown) {
    if (yearKnown) return partOf(startOfDay(date));
    // No year: the latest such day by now (chrono takes the nearest, which can be next year's).
    let day = localMs(partsOf(now).year, c.get('month')!, c.get('day')!);
    while (day > now) day = addMonths(day, -12);
    return { ...partOf(day), yearImplied: true };
  }
  if (monthKnown) {
    if (!yearKnown && !MONTH_PREPOSITION.test(text.slice(0, result.index)) && !/^(in|during|since|of|early|mid|late)\b/i.test(words)) return undefined;
    if (yearKnown) return { from: startOfMonth(date), to: startOfMonth(date, 1) };
    let from = localMs(partsOf(now).year, c.get('month')!, 1);
    while (from > now) from = addMonths(from, -12);
    return { from, to: addMonths(from, 1), yearImplied: true };
  }
  if (yearKnown) return { from: localMs(c.get('year')!, 1, 1), to: localMs(c.get('year')! + 1, 1, 1) };
  return undefined;
}

/** Saturday and Sunday: "this weekend" the one of this week, "next weekend" the one after; otherwise the latest one begun by now, and for "last weekend" on a weekend, the one before. */
function weekend(words: string, now: number): { from: number; to: number } {
  const saturdayThisWeek = startOfWeek(now) + 5 * DAY_MS;
  let from: number;
  if (/\bnext\b/.test(words)) from = saturdayThisWeek + 7 * DAY_MS;
  else if (/\bthis\b/.test(words) && !/\bpast\b/.test(words)) from = saturdayThisWeek;
  else {
    from = saturdayThisWeek <= now ? saturdayThisWeek : saturdayThisWeek - 7 * DAY_MS;
    if (/\blast\b/.test(words) && from === saturdayThisWeek) from -= 7 * DAY_MS;
  }
  return { from, to: from + 2 * DAY_MS };
}

/** Two windows read as the ends of one span: "between May 8 and May 20", "from June 1st through the 15th", "May 8 - 20". */
function joined(query: string, windows: LocalWindow[]): LocalWindow[] {
  const out: LocalWindow[] = [];
  for (let i = 0; i < windows.length; i++) {
    const a = windows[i]!;
    const b = windows[i + 1];
    const between = b ? query.slice(a.end, b.start) : '';
    const lead = /\b(between|from)\s*$/i.exec(query.slice(0, a.start));
    if (b && /^\s*(and|to|until|till|through|thru|-|–|—)\s*$/i.test(between) && (lead || !/^\s*and\s*$/i.test(between))) {
      let from = a.from;
      // "between May 8 and May 20, 2023": the year said once is both ends'.
      if (a.yearImplied && !b.yearImplied) {
        const year = partsOf(b.from).year;
        const { month, day } = partsOf(a.from);
        from = localMs(year, month, day);
        if (from > b.from) from = localMs(year - 1, month, day);
      } else if (from > b.from) from = addMonths(from, -12);
      out.push({ start: lead ? lead.index : a.start, end: b.end, from, to: b.to, ...(a.yearImplied && b.yearImplied ? { yearImplied: true } : {}) });
      i++;
      continue;
    }
    // "between 8 and 20 May": a bare day before the end that has the month.
    const bareDay = /\b(between|from)\s+(\d{1,2})(?:st|nd|rd|th)?\s+(?:and|to|until|till|through|-|–)\s*$/i.exec(query.slice(0, a.start));
    if (bareDay && a.to - a.from === DAY_MS) {
      const { year, month } = partsOf(a.from);
      const from = localMs(year, month, Number(bareDay[2]));
      if (from < a.from) {
        out.push({ ...a, start: bareDay.index, from });
        continue;
      }
    }
    out.push(a);
  }
  return out;
}

/** "since May 8", "after Monday": open to the future; "before June", "until July 10": open to the past. */
function withQualifiers(query: string, windows: LocalWindow[]): LocalWindow[] {
  return windows.map((w) => {
    const lead = /\b(since|after|from|before|until|till|by|prior to|up to)\s*$/i.exec(query.slice(0, w.start));
    if (!lead) return w;
    const word = lead[1]!.toLowerCase();
    const base = { start: lead.index, end: w.end };
    if (word === 'since' || word === 'from') return { ...base, from: w.from, to: Infinity };
    if (word === 'after') return { ...base, from: w.to, to: Infinity };
    if (word === 'before' || word === 'prior to') return { ...base, from: -Infinity, to: w.from };
    return { ...base, from: -Infinity, to: w.to };
  });
}
