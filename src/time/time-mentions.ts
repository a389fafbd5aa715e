import { casual, type ParsedResult } from 'chrono-node/en';
import type { TimeMention } from '../schema/time-mention.js';
import { withoutHedges } from './chrono-amounts.js';

/**
 * The times a memory's text gives relative to when it was written
 * ("yesterday", "last week", "next month", "two years ago", "last Friday"),
 * each resolved against `writtenAt` (the memory's `createdAt`) in the
 * runtime's time zone, in text order. English only: the parser is
 * chrono-node's English one.
 *
 * Left out, because they are not a time a "when?" question is after or are
 * mostly misread: "now", times of day ("tonight", "this morning"),
 * durations ("for 4 years"), and bare day names ("sun", "sat").
 */
export function timeMentions(text: string, writtenAt: number): TimeMention[] {
  // chrono runs every one of its parsers over each text; most texts have none of the words a relative time needs.
  if (!MAY_HAVE_RELATIVE_TIME.test(text)) return [];
  const ref = new Date(writtenAt);
  const out: TimeMention[] = [];
  // An amount after "about" or "around" is misread by chrono (time/chrono-amounts.ts).
  for (const result of casual.parse(withoutHedges(text), ref)) {
    const mention = relativeMention(result, ref);
    if (mention) out.push(mention);
    if (out.length === MAX_MENTIONS) break;
  }
  return out;
}

const MAX_MENTIONS = 20;

/** Every relative time chrono reads has one of these words. */
const MAY_HAVE_RELATIVE_TIME =
  /\b(yesterday|tomorrow|today|ago|last|next|past|this|coming|weekend|(in|after|within) (a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple))\b/i;
/** What makes a parsed time relative to the moment of writing, rather than a date or a day name alone. */
const RELATIVE_WORD = /\b(yesterday|tomorrow|today|ago|last|next|past|this|coming)\b/i;
const LEFT_OUT = /^(now|right now|tonight|this (morning|afternoon|evening)|for\b)/i;

function relativeMention(result: ParsedResult, ref: Date): TimeMention | undefined {
  const text = result.text.trim().replace(/[.,;:!?]+$/, '');
  if (!text || text.length > 100 || LEFT_OUT.test(text)) return undefined;
  const tags = result.tags();
  const casualDay = [...tags].some((tag) => tag.startsWith('casualReference/') && /(yesterday|tomorrow|today)$/.test(tag));
  if (!casualDay && !RELATIVE_WORD.test(text) && !tags.has('result/relativeDate')) return undefined;
  // A time of day alone ("this evening") is not a date.
  if (!result.start.isCertain('day') && !result.start.isCertain('weekday') && tags.has('parser/ENCasualTimeParser')) return undefined;
  const at = result.start.date();
  if (Number.isNaN(at.getTime())) return undefined;
  const grain = /\bweeks?\b/i.test(text) ? 'week' : /\bmonths?\b/i.test(text) ? 'month' : /\byears?\b/i.test(text) ? 'year' : 'day';
  // "this week" is the week it was written in (chrono dates it to the week's start, which for a Monday-first week can be the Sunday before).
  const offset = grain !== 'day' && /\bthis\b/i.test(text) ? 0 : offsetOf(grain, at, ref);
  return { text, grain, offset };
}

const DAY_MS = 86_400_000;

/** Whole grains from the one `ref` falls in to the one `at` falls in, on the runtime's local calendar. */
function offsetOf(grain: TimeMention['grain'], at: Date, ref: Date): number {
  if (grain === 'year') return at.getFullYear() - ref.getFullYear();
  if (grain === 'month') return (at.getFullYear() - ref.getFullYear()) * 12 + at.getMonth() - ref.getMonth();
  const days = Math.round((localDay(at) - localDay(ref)) / DAY_MS);
  if (grain === 'day') return days;
  // Weeks start on Monday (ISO 8601): count from each date's Monday.
  const mondayOf = (d: Date) => localDay(d) - ((d.getDay() + 6) % 7) * DAY_MS;
  return Math.round((mondayOf(at) - mondayOf(ref)) / (7 * DAY_MS));
}

/** The local calendar date as a UTC midnight, so day differences ignore daylight saving. */
function localDay(d: Date): number {
  return Date.UTC(d.getFullYear(), d.getMonth(), d.getDate());
}
