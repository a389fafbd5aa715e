import * as z from 'zod/mini';
import type { MemoryRecord } from '../schema/memory-record.js';
import { parseInput } from '../schema/parse.js';
import { timeMentionSchema, type TimeMention } from '../schema/time-mention.js';
import { timeZoneSchema } from '../schema/time-zone.js';
import { lazySchema } from '../schema/lazy-schema.js';

/** The range a JavaScript Date can hold; outside it, date formatting throws. */
const MAX_DATE_MS = 8.64e15;
const dateMsSchema = z.number().check(z.gte(-MAX_DATE_MS), z.lte(MAX_DATE_MS));

export { timeZoneSchema };

export const formatContextOptionsSchema = lazySchema(() => z.strictObject({
  /** The moment the prompt is for (default: now). */
  now: z.optional(z.union([dateMsSchema, z.date()])),
  /** IANA time zone for the Now line and every date (default: the runtime's). */
  timeZone: z.optional(timeZoneSchema),
  /** A profile line to put first (from `memory.profileLine(userId)`). */
  profileLine: z.optional(z.string()),
  /**
   * `'session'`: the hits under one heading per session (a memory's
   * `sessionId`), "Session 3 (2023-06-09):" with the session's place among
   * the user's sessions and its date (`hit.session`, from recall), the
   * sessions in time order and each one's memories in the order they were
   * said; memories of no session last, under "Other memories:". Default:
   * one list in the hits' order.
   */
  groupBy: z.optional(z.literal('session')),
}));
/**
 * Options of `formatContext`: the time zone the dates are written in, the "now" line's time, and a profile line to put first.
 * @interface
 */
export type FormatContextOptions = z.input<typeof formatContextOptionsSchema>;

interface HitLike {
  memory: MemoryRecord;
  /** The turn a turn hit answers (RecallHit.answers): quoted when it is not a hit itself. */
  answers?: { id: string; speaker: string; text: string };
  /** The relative times in its text (RecallHit.times): each is followed by its absolute date. */
  times?: readonly TimeMention[];
  /** Its session's place and span (RecallHit.session): the heading `groupBy: 'session'` writes. */
  session?: { id: string; number: number; first: number; last: number };
}

/** What rendering reads from a memory; hits built by hand are checked against it (extra fields are fine). */
export const renderableMemorySchema = lazySchema(() => z
  .looseObject({
    type: z.enum(['episode', 'fact', 'turn']),
    text: z.string(),
    speaker: z.optional(z.string()),
    createdAt: dateMsSchema,
    goal: z.optional(z.nullable(z.string())),
    outcome: z.optional(z.nullable(z.string())),
    quality: z.optional(z.nullable(z.string())),
    outcomeStatus: z.optional(z.string()),
  })
  .check(z.refine((m) => m.type !== 'turn' || typeof m.speaker === 'string', { message: 'a turn needs its speaker', path: ['speaker'] })));
const hitsSchema = lazySchema(() => z.array(
  z.looseObject({
    memory: renderableMemorySchema,
    answers: z.optional(z.looseObject({ id: z.string(), speaker: z.string(), text: z.string() })),
    times: z.optional(z.array(timeMentionSchema).check(z.maxLength(100))),
    session: z.optional(z.looseObject({ id: z.string(), number: z.number().check(z.int(), z.gte(1)), first: dateMsSchema, last: dateMsSchema })),
  }),
));
/** How much of the question a turn answers is quoted. */
const QUOTE_CHARS = 160;

/**
 * Renders recalled memories as compact prompt lines:
 *
 *   Now: 2026-11-23 14:05 (Europe/Lisbon)
 *   - (2026-11-20, episode, success) Choose a database. Outcome: Went with Postgres
 *   - (2026-11-02, fact) Lives in Porto
 *   - (2026-11-01, turn, user) We moved to Porto last month (2026-10)
 *   - (2026-10-30, turn, Bo, answering Ana: "What does your cat eat?") Tuna, mostly.
 *
 * Dates are the memory's creation date in the given time zone; a relative
 * time in a fact or turn (`times`) is followed by the date it means, counted
 * from that creation date.
 */
export function formatContext(hits: readonly HitLike[], options: FormatContextOptions = {}): string {
  // Rendered from the validated copy: a value that changes after validation cannot reach the lines.
  const checked = parseInput(hitsSchema, hits, 'formatContext: hits') as unknown as readonly HitLike[];
  const opts = parseInput(formatContextOptionsSchema, options, 'formatContext');
  const timeZone = opts.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const now = opts.now === undefined ? Date.now() : opts.now instanceof Date ? opts.now.getTime() : opts.now;
  const lines = [`Now: ${localDateTime(now, timeZone)} (${timeZone})`];
  if (opts.profileLine) lines.push(opts.profileLine);
  const shown = new Set(checked.map((hit) => hit.memory.id));
  const line = (hit: HitLike) => {
    // A turn found through the question it answers quotes that question, unless it is a line of its own.
    const answers = hit.memory.type === 'turn' && hit.answers && !shown.has(hit.answers.id) ? hit.answers : undefined;
    return memoryLine(hit.memory, timeZone, answers, hit.times);
  };
  if (opts.groupBy === 'session') lines.push(...bySession(checked, timeZone, line));
  else lines.push(...checked.map(line));
  return lines.join('\n');
}

/** The lines under a heading per session, sessions and memories in time order; memories of no session last. */
function bySession(hits: readonly HitLike[], timeZone: string, line: (hit: HitLike) => string): string[] {
  const groups = new Map<string, { hits: HitLike[]; number?: number; first: number; last: number }>();
  const others: HitLike[] = [];
  for (const hit of hits) {
    const id = hit.session?.id ?? hit.memory.sessionId;
    if (typeof id !== 'string') {
      others.push(hit);
      continue;
    }
    let group = groups.get(id);
    // A hit built by hand may carry no session span: the session's own memories among the hits give its dates.
    if (!group) groups.set(id, (group = { hits: [], number: hit.session?.number, first: hit.session?.first ?? hit.memory.createdAt, last: hit.session?.last ?? hit.memory.createdAt }));
    if (!hit.session) {
      group.first = Math.min(group.first, hit.memory.createdAt);
      group.last = Math.max(group.last, hit.memory.createdAt);
    }
    group.hits.push(hit);
  }
  const inOrder = (list: HitLike[]) => list.map((hit, i) => ({ hit, i })).sort((a, b) => a.hit.memory.createdAt - b.hit.memory.createdAt || a.i - b.i).map(({ hit }) => line(hit));
  const lines: string[] = [];
  const sessions = [...groups].sort(([a, x], [b, y]) => x.first - y.first || (x.number ?? 0) - (y.number ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  for (const [id, group] of sessions) {
    const from = localDate(group.first, timeZone);
    const to = localDate(group.last, timeZone);
    const name = group.number !== undefined ? `Session ${group.number}` : `Session "${oneLine(id)}"`;
    lines.push(`${name} (${from === to ? from : `${from} to ${to}`}):`, ...inOrder(group.hits));
  }
  if (others.length > 0) lines.push(...(sessions.length > 0 ? ['Other memories:'] : []), ...inOrder(others));
  return lines;
}

export function memoryLine(memory: MemoryRecord, timeZone: string, answers?: { speaker: string; text: string }, times: readonly TimeMention[] = []): string {
  const date = localDate(memory.createdAt, timeZone);
  if (memory.type === 'fact') return `- (${date}, fact) ${oneLine(withDates(memory.text, times, date))}`;
  if (memory.type === 'turn') {
    const question = answers ? `, answering ${oneLine(answers.speaker)}: "${quote(answers.text)}"` : '';
    return `- (${date}, turn, ${oneLine(memory.speaker)}${question}) ${oneLine(withDates(memory.text, times, date))}`;
  }
  const quality = memory.quality ?? memory.outcomeStatus;
  const head = memory.goal ? oneLine(memory.goal) : firstLine(memory.text);
  const outcome = memory.outcome?.trim() ? ` Outcome: ${oneLine(memory.outcome)}` : '';
  return `- (${date}, episode, ${quality}) ${stripEndPeriod(head)}.${outcome}`;
}

/** `text` with each relative time followed by the date it means ("last week (week of 2026-11-09)"), counted from `written` (YYYY-MM-DD). */
function withDates(text: string, times: readonly TimeMention[], written: string): string {
  let out = '';
  let rest = text;
  for (const time of times) {
    const at = rest.indexOf(time.text);
    const date = absoluteDate(time, written);
    if (at < 0 || !date) continue;
    const end = at + time.text.length;
    out += `${rest.slice(0, end)} (${date})`;
    rest = rest.slice(end);
  }
  return out + rest;
}

/** The date a relative time means, or undefined outside years 1 to 9999 (a hand-built hit can hold any offset). */
function absoluteDate({ grain, offset }: TimeMention, written: string): string | undefined {
  const [y, m, d] = written.split('-').map(Number) as [number, number, number];
  if (grain === 'year') return y + offset >= 1 && y + offset <= 9999 ? String(y + offset).padStart(4, '0') : undefined;
  const day = (ms: number) => {
    const iso = Number.isFinite(ms) && Math.abs(ms) < 2.5e14 ? new Date(ms).toISOString() : '';
    return /^\d{4}-/.test(iso) && iso.slice(0, 4) !== '0000' ? iso : undefined;
  };
  if (grain === 'month') return day(Date.UTC(y, m - 1 + offset, 1))?.slice(0, 7);
  if (grain === 'day') return day(Date.UTC(y, m - 1, d + offset))?.slice(0, 10);
  // Weeks start on Monday.
  const monday = Date.UTC(y, m - 1, d) - ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) * 86_400_000;
  const week = day(monday + offset * 7 * 86_400_000);
  return week && `week of ${week.slice(0, 10)}`;
}

/** YYYY-MM-DD in the zone. */
export function localDate(epochMs: number, timeZone: string): string {
  const parts = partsOf(epochMs, timeZone);
  return `${parts.year}-${parts.month}-${parts.day}`;
}

function localDateTime(epochMs: number, timeZone: string): string {
  const parts = partsOf(epochMs, timeZone);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

function partsOf(epochMs: number, timeZone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) out[part.type] = part.value;
  return out;
}

/** At most this many zones' formatters are kept; an app formats in one or a few. */
const MAX_ZONES = 16;
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * One formatter per zone, kept: building an `Intl.DateTimeFormat` resolves
 * its locale and zone each time (a fraction of a millisecond warm), and a
 * prompt has a date on every line.
 */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    if (formatters.size >= MAX_ZONES) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? text).trim();
}

function oneLine(text: string): string {
  return text.replace(/\s*\n+\s*/g, ' ').trim();
}

function stripEndPeriod(text: string): string {
  return text.replace(/[.\s]+$/, '');
}

/** One line of at most QUOTE_CHARS characters, cut at a word with an ellipsis. */
function quote(text: string): string {
  const line = oneLine(text);
  if (line.length <= QUOTE_CHARS) return line;
  const cut = line.slice(0, QUOTE_CHARS);
  return `${cut.slice(0, cut.lastIndexOf(' ') > QUOTE_CHARS / 2 ? cut.lastIndexOf(' ') : QUOTE_CHARS).trimEnd()}…`;
}
