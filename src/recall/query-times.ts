import type { MemoryIndex } from '../search/memory-index.js';
import type { SessionSpan } from '../search/row-signals.js';
import type { QueryWindow, TimeWindows } from '../search/time-windows.js';
import type { LocalWindow, ParsedTimeQuery, QuerySpan, SessionReference, TimeQueryParser } from '../time/query-parser.js';
import { parsedTimeQuerySchema } from '../schema/time-parser.js';
import { parseInput } from '../schema/parse.js';
import { ValidationError } from '../errors.js';
import { describeThrown } from '../schema/plain-data.js';
import { instantOf, localOf, runtimeTimeZone } from '../time/zone.js';
import { englishTimeParser } from '../time/english/parser.js';

/** What a query says about when, placed over one user's memories. */
export interface QueryTimes {
  /** The windows it names that hold memories, in the app's zone; undefined when none. */
  windows: TimeWindows | undefined;
  /** The query's words without those that named the kept windows: what it is matched by. */
  text: string;
  /** It asks for nothing but what was said in its windows ("What did we discuss on May 8th?"): answered in time order. */
  slice: boolean;
}

/** How many years back a date named without its year ("on May 8th") is tried when the latest one holds no memory. */
const YEARS_BACK = 10;

/**
 * Reads the times and session references of `query` (time/query-parser.ts)
 * against `now` in `timeZone`, and makes them windows over `userId`'s
 * memories: a calendar window becomes instants in the zone (its days 23 or
 * 25 hours long where the clocks change); a date without its year that
 * holds no memory is tried in the years before; a session reference
 * becomes the sessions at those places among the user's sessions (ordered
 * by their first memory, the current one left out). A window that holds no
 * memory is dropped and its words stay in the query: it can tell nothing.
 */
export async function readQueryTimes(
  index: MemoryIndex,
  parser: TimeQueryParser,
  userId: string,
  query: string,
  options: { now: number; timeZone: string | undefined; currentSessionId?: string },
): Promise<QueryTimes> {
  const none: QueryTimes = { windows: undefined, text: query, slice: false };
  const { now, timeZone } = options;
  const parsed = await parsedBy(parser, query, localOf(now, timeZone), timeZone);
  if (parsed.windows.length === 0 && parsed.sessions.length === 0) return none;
  const kept: { window: QueryWindow; span: QuerySpan }[] = [];
  const place = (w: LocalWindow, years = 0): QueryWindow => {
    const shift = (local: number) => (Number.isFinite(local) ? instantOf(years === 0 ? local : shiftYears(local, years), timeZone) : local);
    return { text: query.slice(w.start, w.end).trim(), from: shift(w.from), to: shift(w.to) };
  };
  for (const w of parsed.windows) {
    const tries = w.yearImplied ? Array.from({ length: YEARS_BACK + 1 }, (_, back) => place(w, -back)) : [place(w)];
    const counts = index.countInWindows(userId, { windows: tries, timeZone });
    const first = counts.findIndex((n) => n > 0);
    if (first >= 0) kept.push({ window: tries[first]!, span: w });
  }
  if (parsed.sessions.length > 0) {
    const all = index.sessions(userId);
    const sessions = orderedSessions(all, now, options.currentSessionId);
    for (const reference of parsed.sessions) {
      const current = all.find((s) => s.id === options.currentSessionId);
      const picked = reference.from === 'current' ? (options.currentSessionId === undefined ? sessions.slice(-1) : current ? [current] : []) : sessionsAt(sessions, reference);
      if (picked.length === 0) continue;
      kept.push({
        window: { text: query.slice(reference.start, reference.end).trim(), from: Math.min(...picked.map((s) => s.first)), to: Math.max(...picked.map((s) => s.last)), sessions: new Set(picked.map((s) => s.id)) },
        span: reference,
      });
    }
  }
  if (kept.length === 0) return none;
  kept.sort((a, b) => a.span.start - b.span.start);
  let text = query;
  for (const { span } of [...kept].reverse()) text = `${text.slice(0, span.start)} ${text.slice(span.end)}`;
  text = text.replace(/\s+/g, ' ').trim();
  const slice = !(await asksForContent(parser, text));
  // A question of nothing but its time is matched by its own words (a query of none would match nothing).
  return { windows: { windows: kept.map((k) => k.window), timeZone }, text: /[\p{L}\p{N}]/u.test(text) ? text : query, slice };
}

/**
 * The parser's answer, checked (schema/time-parser.ts): it may be the app's
 * own (createMemory's `timeParser`), and a window that is not one would
 * rank nothing as it should. What it answers or throws wrongly is a
 * ValidationError, before recall reads or writes anything.
 */
async function parsedBy(parser: TimeQueryParser, query: string, now: number, timeZone: string | undefined): Promise<ParsedTimeQuery> {
  let answer: unknown;
  try {
    // engram's own English parser reads no zone (its `now` is the wall clock already): the runtime's is named only for another.
    answer = await (parser === englishTimeParser ? englishTimeParser.parse(query, now) : parser.parse(query, now, timeZone ?? runtimeTimeZone()));
  } catch (error) {
    throw parserError(`parse() threw (${describeThrown(error)})`);
  }
  return parseInput(parsedTimeQuerySchema(query.length), answer, `recall: timeParser (${parser.language}) answered wrongly`);
}

async function asksForContent(parser: TimeQueryParser, rest: string): Promise<boolean> {
  // Without the method, a question with words left asks about them (its windows rank, not slice).
  if (!parser.asksForContent) return true;
  let answer: unknown;
  try {
    answer = await parser.asksForContent(rest);
  } catch (error) {
    throw parserError(`asksForContent() threw (${describeThrown(error)})`);
  }
  if (typeof answer !== 'boolean') throw parserError('asksForContent() must answer true or false');
  return answer;
}

function parserError(message: string): ValidationError {
  return new ValidationError(`recall: timeParser: ${message}. Fix the parser given to createMemory({ timeParser }).`, [{ path: 'timeParser', message }]);
}

/** The user's sessions begun by now, oldest first (ties by id), the current one apart. */
export function orderedSessions(sessions: readonly SessionSpan[], now: number, currentSessionId?: string): SessionSpan[] {
  return sessions.filter((s) => s.first <= now && s.id !== currentSessionId).sort((a, b) => a.first - b.first || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The sessions a reference names, counted from the first or back from the latest. */
function sessionsAt(ordered: readonly SessionSpan[], reference: SessionReference): SessionSpan[] {
  const { index, count } = reference;
  if (reference.from === 'first') return ordered.slice(index, index + count);
  const end = ordered.length - index;
  return end <= 0 ? [] : ordered.slice(Math.max(0, end - count), end);
}

/** `local` moved by whole years (February 29 to March 1 where the year has none, as Date.UTC rolls it). */
function shiftYears(local: number, years: number): number {
  const d = new Date(local);
  return Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());
}
