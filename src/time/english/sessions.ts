import type { SessionReference } from '../query-parser.js';

/**
 * The sessions an English question refers to by their order: "the first
 * session", "our last conversation", "the second chat", "session 3", "two
 * sessions ago", "the last three sessions", "the first two conversations",
 * "the session before last", "the second-to-last chat", "the previous
 * session", "the last time we talked", "this conversation". A session is
 * any of: session, conversation, chat, talk, call, meeting, discussion.
 */
export function readSessions(query: string): SessionReference[] {
  const out: SessionReference[] = [];
  const taken: [number, number][] = [];
  for (const { pattern, read } of FORMS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(query); m; m = pattern.exec(query)) {
      const start = m.index + (m[0].length - m[0].trimStart().length);
      const end = m.index + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      // "When was the last time we talked about X?" asks when X came up, not about the last session.
      if (/\bwhen\s+(?:was|is|did)\s+(?:the\s+)?$/i.test(query.slice(0, start))) continue;
      const reference = read(m);
      if (!reference) continue;
      taken.push([start, end]);
      out.push({ start, end, ...reference });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

type Reference = Omit<SessionReference, 'start' | 'end'>;

const SESSION = String.raw`(?:sessions?|conversations?|chats?|talks?|calls?|meetings?|discussions?)`;
const NUMBER = String.raw`(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|couple of|few|several)`;
const ORDINAL = String.raw`(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d{1,3}(?:st|nd|rd|th))`;
/** Words that may lead into a reference and are part of it ("in our first session"). */
const LEAD = String.raw`(?:\b(?:in|during|from|at|of|over|across|for)\s+)?(?:\b(?:the|our|my|your|this|that)\s+)?(?:\bvery\s+)?`;

const NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, 'a couple of': 2, 'couple of': 2, 'a few': 3, few: 3, several: 3 };
const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, eleventh: 11, twelfth: 12 };

function number(word: string): number {
  const w = word.toLowerCase();
  return /^\d+$/.test(w) ? Number(w) : (NUMBERS[w] ?? 1);
}
function ordinal(word: string): number {
  const w = word.toLowerCase();
  return ORDINALS[w] ?? Number.parseInt(w, 10);
}

const re = (source: string) => new RegExp(source, 'gi');

const FORMS: { pattern: RegExp; read: (m: RegExpExecArray) => Reference | undefined }[] = [
  // "the session before last", "the conversation before the last one"
  { pattern: re(String.raw`${LEAD}${SESSION}\s+before\s+(?:the\s+)?last(?:\s+one)?\b`), read: () => ({ from: 'last', index: 1, count: 1 }) },
  // "the second-to-last session", "the penultimate chat", "the next-to-last conversation"
  { pattern: re(String.raw`${LEAD}(?:(second|third)[\s-]+(?:to[\s-]+)?last|next[\s-]+to[\s-]+last|penultimate)\s+${SESSION}\b`), read: (m) => ({ from: 'last', index: m[1] ? ordinal(m[1]) - 1 : 1, count: 1 }) },
  // "two sessions ago", "3 conversations back"
  { pattern: re(String.raw`${LEAD}${NUMBER}\s+${SESSION}\s+(?:ago|back|before\s+this\s+one)\b`), read: (m) => ({ from: 'last', index: number(m[1]!) - 1, count: 1 }) },
  // "the last three sessions", "our past 2 conversations", "the previous few chats", "the most recent two sessions"
  { pattern: re(String.raw`${LEAD}(?:last|past|previous|latest|most\s+recent|recent)\s+${NUMBER}\s+${SESSION}\b`), read: (m) => ({ from: 'last', index: 0, count: number(m[1]!) }) },
  // "the first two sessions", "our first 3 chats"
  { pattern: re(String.raw`${LEAD}(?:first|earliest|opening)\s+${NUMBER}\s+${SESSION}\b`), read: (m) => ({ from: 'first', index: 0, count: number(m[1]!) }) },
  // "the first session", "our third conversation", "the 2nd chat", "the very first talk"
  { pattern: re(String.raw`${LEAD}${ORDINAL}\s+${SESSION}\b`), read: (m) => ({ from: 'first', index: ordinal(m[1]!) - 1, count: 1 }) },
  // "session 3", "conversation #2", "chat number 4"
  { pattern: re(String.raw`${LEAD}${SESSION}\s+(?:#|no\.?\s*|number\s+)?(\d{1,3})\b(?!\s*(?:st|nd|rd|th|am|pm|:|days?|weeks?|months?|years?|minutes?|hours?)\b)`), read: (m) => ({ from: 'first', index: Number(m[1]) - 1, count: 1 }) },
  // "the last session", "our latest conversation", "the previous chat", "our most recent talk", "the final session"
  { pattern: re(String.raw`${LEAD}(?:last|latest|previous|prior|most\s+recent|final|preceding)\s+${SESSION}\b`), read: () => ({ from: 'last', index: 0, count: 1 }) },
  // "the earliest session", "our opening conversation", "the initial chat"
  { pattern: re(String.raw`${LEAD}(?:earliest|opening|initial)\s+${SESSION}\b`), read: () => ({ from: 'first', index: 0, count: 1 }) },
  // "this session", "the current conversation", "today's chat"
  { pattern: re(String.raw`\b(?:(?:in|during)\s+)?(?:this|the\s+current|our\s+current|today'?s)\s+${SESSION}\b`), read: () => ({ from: 'current', index: 0, count: 1 }) },
  // "the last time we talked", "the first time we spoke", "last time we chatted"; "last time" ending a clause ("What did we say last time?")
  {
    pattern: re(String.raw`${LEAD}(last|first|previous)\s+time(?:\s+(?:that\s+)?(?:we|you\s+and\s+I|I\s+and\s+you)\s+(?:talked|spoke|chatted|met|had\s+a\s+(?:chat|talk|conversation|session)|discussed\s+(?:this|that|it|anything)|were\s+talking|spoke\s+together|caught\s+up)\b|(?=\s*(?:[?.!,;]|$)))`),
    read: (m) => ({ from: m[1]!.toLowerCase() === 'first' ? 'first' : 'last', index: 0, count: 1 }),
  },
];
