import { tokenize } from '../../text/tokenize.js';
import type { ParsedTimeQuery, TimeQueryParser } from '../query-parser.js';
import { readDates } from './dates.js';
import { readSessions } from './sessions.js';

/**
 * English, recall's default time parser: sessions first (their words, "the
 * last three sessions", are not dates), then dates in what is left
 * (english/dates.ts, on chrono-node's English parser). It answers at once,
 * so another parser can fall back to it.
 */
export const englishTimeParser = {
  language: 'en',
  /** The session references of `query`, then the dates in the rest, against `now` (local ms). */
  parse(query: string, now: number): ParsedTimeQuery {
    const sessions = MAY_NAME_SESSION.test(query) ? readSessions(query) : [];
    let rest = query;
    for (const s of sessions) rest = rest.slice(0, s.start) + ' '.repeat(s.end - s.start) + rest.slice(s.end);
    return { windows: MAY_NAME_DATE.test(rest) ? readDates(rest, now) : [], sessions };
  },
  /** Whether `rest` has a word other than the ones that only ask what was said ("discuss", "talk about", "remind me"). */
  asksForContent(rest: string): boolean {
    // A letter alone is no content (the "s" of "this evening's chat").
    return tokenize(rest).some((term) => term.length > 1 && !GENERIC.has(term));
  },
} satisfies TimeQueryParser;

/**
 * Every date the parser reads has one of these words (a month, a weekday, a
 * digit, a unit, a relative word…), and every session reference one of
 * the next: most questions have none, and skip the parser (chrono-node
 * costs tens of microseconds a question).
 */
const MAY_NAME_DATE =
  /\d|\b(ago|back|yesterday|today|tonight|tomorrow|morning|afternoon|evening|night|last|past|previous|this|next|since|weekend|week|month|year|fortnight|spring|summer|fall|autumn|winter|jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|xmas|halloween|thanksgiving|valentine'?s|independence|new year'?s)s?\b/i;
const MAY_NAME_SESSION = /\b(session|conversation|chat|talk|call|meeting|discussion|time)s?\b/i;

/**
 * What a question asks when it only wants what was said then: "What did we
 * discuss on May 8th?", "Remind me what we talked about last week", "What
 * happened in our first session?". Index terms (stemmed, as the keyword
 * index has them); stop words are gone already.
 */
const GENERIC: ReadonlySet<string> = new Set(
  tokenize(
    'discuss discussed discussing discussion discussions talk talked talking talks chat chatted chatting chats say said saying ' +
      'tell told telling mention mentioned mentioning speak spoke speaking conversation conversations happen happened happening ' +
      'go went going anything everything something stuff thing things topic topics subject subjects remind reminder remember ' +
      'recall cover covered come came bring brought share shared sharing summary summarize summarise recap overview us ' +
      'get got let know like kind sort also else exactly again please can could would ever give rundown review ' +
      'highlight highlights catch fill overall main general ask wonder',
  ),
);
