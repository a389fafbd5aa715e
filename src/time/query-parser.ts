/**
 * What a question says about *when*, read by the parser of one language:
 * `createMemory({ timeParser })` plugs one in, English
 * (`englishTimeParser`, on chrono-node) is the default. A parser knows
 * words, not zones: it reads the question against the wall clock of "now"
 * and answers in wall-clock time (*local ms*: the milliseconds the same
 * wall-clock date and time would be in UTC, `Date.UTC(year, month - 1, day,
 * hour…)`); recall then places its windows in the app's time zone and
 * resolves its session references against the user's sessions. Recall
 * checks every answer: a window or span that is not one is refused with a
 * ValidationError. It may answer with a promise (a parser on the page,
 * called from the engine's worker, does).
 */
export interface TimeQueryParser {
  /** The language it reads (BCP 47), e.g. 'en'. */
  readonly language: string;
  /**
   * Reads the time expressions and session references in `query`, against
   * `now` (local ms: the wall clock in `timeZone`, written as if it were
   * UTC; with chrono-node, `parse(query, { instant: new Date(now), timezone: 0 })`).
   */
  parse(query: string, now: number, timeZone: string): ParsedTimeQuery | Promise<ParsedTimeQuery>;
  /**
   * Whether `rest` (a question with its time words taken out, and the
   * speakers it names) asks about something, or only for what was said then
   * ("What did we discuss?"): such a question is answered by the window's
   * memories in time order. Without it, every question that has words left
   * asks about something (its windows rank, not slice).
   */
  asksForContent?(rest: string): boolean | Promise<boolean>;
}

/** What a time parser reads in one question: its calendar windows and its references to sessions, each with its words' span. */
export interface ParsedTimeQuery {
  windows: LocalWindow[];
  sessions: SessionReference[];
}

/** Where in the question an expression was read: `query.slice(start, end)` are its words. */
export interface QuerySpan {
  start: number;
  end: number;
}

/** A calendar window the question names ("on May 8th", "last week", "this morning", "between May 8 and 20"). */
export interface LocalWindow extends QuerySpan {
  /** Wall-clock bounds, local ms: from inclusive, to exclusive; ±Infinity for an open side ("since May 8"). */
  from: number;
  to: number;
  /**
   * The question left the year out ("in May", "on May 8th"): the parser took
   * the latest such window that starts by now, and recall may try the years
   * before when that one holds no memory.
   */
  yearImplied?: boolean;
}

/**
 * A reference to the user's sessions by their order ("the first session",
 * "two sessions ago", "the last three conversations", "the session before
 * last"): `count` sessions from position `index` (0-based) counted from the
 * first session (`from: 'first'`) or back from the latest (`from: 'last'`:
 * index 0 is the latest, and the sessions are the index-th latest and the
 * `count - 1` before it); `from: 'current'` is the session the question is
 * asked in.
 */
export interface SessionReference extends QuerySpan {
  from: 'first' | 'last' | 'current';
  index: number;
  count: number;
}
