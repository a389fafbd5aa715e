import * as z from 'zod/mini';
import type { MemoryRecord } from '../schema/memory-record.js';
import { parseInput } from '../schema/parse.js';

/** The range a JavaScript Date can hold; outside it, date formatting throws. */
const MAX_DATE_MS = 8.64e15;
const dateMsSchema = z.number().check(z.gte(-MAX_DATE_MS), z.lte(MAX_DATE_MS));

export const timeZoneSchema = z.string().check(z.refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be a valid IANA time zone, e.g. "Europe/Lisbon"'));

export const formatContextOptionsSchema = z.strictObject({
  /** The moment the prompt is for (default: now). */
  now: z.optional(z.union([dateMsSchema, z.date()])),
  /** IANA time zone for the Now line and every date (default: the runtime's). */
  timeZone: z.optional(timeZoneSchema),
  /** A profile line to put first (from `memory.profileLine(userId)`). */
  profileLine: z.optional(z.string()),
});
export type FormatContextOptions = z.input<typeof formatContextOptionsSchema>;

interface HitLike {
  memory: MemoryRecord;
}

/** What rendering reads from a memory; hits built by hand are checked against it (extra fields are fine). */
export const renderableMemorySchema = z
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
  .check(z.refine((m) => m.type !== 'turn' || typeof m.speaker === 'string', { message: 'a turn needs its speaker', path: ['speaker'] }));
const hitsSchema = z.array(z.looseObject({ memory: renderableMemorySchema }));

/**
 * Renders recalled memories as compact prompt lines:
 *
 *   Now: 2026-11-23 14:05 (Europe/Lisbon)
 *   - (2026-11-20, episode, success) Choose a database. Outcome: Went with Postgres
 *   - (2026-11-02, fact) Lives in Porto
 *   - (2026-11-01, turn, user) We're moving to Porto next spring
 *
 * Dates are the memory's creation date in the given time zone.
 */
export function formatContext(hits: readonly HitLike[], options: FormatContextOptions = {}): string {
  parseInput(hitsSchema, hits, 'formatContext: hits');
  const opts = parseInput(formatContextOptionsSchema, options, 'formatContext');
  const timeZone = opts.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const now = opts.now === undefined ? Date.now() : opts.now instanceof Date ? opts.now.getTime() : opts.now;
  const lines = [`Now: ${localDateTime(now, timeZone)} (${timeZone})`];
  if (opts.profileLine) lines.push(opts.profileLine);
  for (const hit of hits) lines.push(memoryLine(hit.memory, timeZone));
  return lines.join('\n');
}

export function memoryLine(memory: MemoryRecord, timeZone: string): string {
  const date = localDate(memory.createdAt, timeZone);
  if (memory.type === 'fact') return `- (${date}, fact) ${oneLine(memory.text)}`;
  if (memory.type === 'turn') return `- (${date}, turn, ${oneLine(memory.speaker)}) ${oneLine(memory.text)}`;
  const quality = memory.quality ?? memory.outcomeStatus;
  const head = memory.goal ? oneLine(memory.goal) : firstLine(memory.text);
  const outcome = memory.outcome?.trim() ? ` Outcome: ${oneLine(memory.outcome)}` : '';
  return `- (${date}, episode, ${quality}) ${stripEndPeriod(head)}.${outcome}`;
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
  const formatter = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const out: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(epochMs))) out[part.type] = part.value;
  return out;
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
