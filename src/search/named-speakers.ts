import { tokenize } from '../text/tokenize.js';

/** What a query says about the speakers of a user's turns (see `namedSpeakers`). */
export interface NamedSpeakers {
  /** The speakers the query names, as they are stored (a turn's `speaker`). */
  speakers: string[];
  /** The query without those names: the words it is matched by (embedding and keywords). */
  text: string;
}

/**
 * The speakers among `speakers` that `query` names ("what did Caroline
 * paint?", "Caroline's dog"), and the query without their names.
 *
 * A turn's speaker is a field, not part of its indexed text: were it text,
 * a query naming a person would match every turn that person said
 * ("Caroline: Hey!") and every greeting that names them, and those would
 * fill the top k. So a named speaker is taken out of the words the query
 * is matched by, and the ranking multiplies that speaker's turns by
 * 1 + `speakerBoost` instead (search/ranking.ts; npm run bench:locomo
 * compares it with names in the indexed text).
 *
 * A name matches whole words, case-insensitively, with an optional
 * possessive ('s); a longer name is matched before a shorter one it
 * contains ("Ana Maria" before "Ana"); names in scripts written without
 * spaces (Chinese, Japanese, Thai…) match inside a run of text. When the
 * names are all the query says, the query keeps them (a query of no words
 * would match nothing). A name made only of stop words ("I", "me", "Will") is
 * never matched: it would be found in almost every query. Diacritics must
 * match as written.
 *
 * A name is data, never a pattern: it is compared with the query code point
 * by code point (`nameAt`), so no character a person's name may hold (`-`,
 * `'`, `.`, `(`, `$&`, an emoji) can change what matches or make the match
 * throw.
 */
export function namedSpeakers(query: string, speakers: Iterable<string>): NamedSpeakers {
  const named: string[] = [];
  let text = query.normalize('NFC');
  const longestFirst = [...speakers].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  for (const speaker of longestFirst) {
    const name = nameOf(speaker);
    if (!name) continue;
    const without = withoutName(text, name);
    if (without === text) continue;
    named.push(speaker);
    text = without;
  }
  if (named.length === 0) return { speakers: named, text: query };
  const rest = text.replace(/\s+/gu, ' ').trim();
  return { speakers: named, text: WORD.test(rest) ? rest : query };
}

const WORD = /[\p{L}\p{N}]/u;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;
const SPACE = /^\s$/u;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const APOSTROPHES = new Set(["'", '’']);

/** A speaker's name as it is looked for in a query. */
interface Name {
  /** Its words (split at whitespace, which matches any run of whitespace), each as code points. */
  words: string[][];
  /** Whether it must start, and end, at a word boundary: its edge is in a spaced script. */
  boundedStart: boolean;
  boundedEnd: boolean;
}

/** Names by speaker: a user's speakers are few and asked about on every recall. */
const names = new Map<string, Name | null>();
const NAMES_MAX = 10_000;

/** The name of `speaker`, or null for a name with no letter or digit, or only stop words. */
function nameOf(speaker: string): Name | null {
  let name = names.get(speaker);
  if (name !== undefined) return name;
  const trimmed = speaker.normalize('NFC').trim();
  if (!WORD.test(trimmed) || tokenize(trimmed).length === 0) name = null;
  else {
    const chars = [...trimmed];
    name = {
      words: trimmed.split(/\s+/u).map((word) => [...word]),
      boundedStart: !UNSPACED.test(chars[0]!),
      boundedEnd: !UNSPACED.test(chars.at(-1)!),
    };
  }
  if (names.size >= NAMES_MAX) names.clear();
  names.set(speaker, name);
  return name;
}

/** `text` with every place that says `name` (left to right, not overlapping) replaced by a space. */
function withoutName(text: string, name: Name): string {
  const chars = [...text];
  let out = '';
  let found = false;
  for (let i = 0; i < chars.length; ) {
    const end = name.boundedStart && i > 0 && WORD_CHAR.test(chars[i - 1]!) ? -1 : nameAt(chars, i, name);
    if (end < 0) {
      out += chars[i++];
      continue;
    }
    out += ' ';
    found = true;
    i = end;
  }
  return found ? out : text;
}

/**
 * Where `name` said at code point `start` of `chars` ends (after an optional
 * possessive 's), or -1: its words in any letter case, with any whitespace
 * between them, and no letter, digit or mark right after it where it must
 * end at a word boundary.
 */
function nameAt(chars: readonly string[], start: number, name: Name): number {
  let at = start;
  for (let w = 0; w < name.words.length; w++) {
    if (w > 0) {
      if (at >= chars.length || !SPACE.test(chars[at]!)) return -1;
      while (at < chars.length && SPACE.test(chars[at]!)) at++;
    }
    for (const char of name.words[w]!) {
      if (at >= chars.length || !sameLetter(chars[at]!, char)) return -1;
      at++;
    }
  }
  if (!name.boundedEnd) return at;
  const possessive = APOSTROPHES.has(chars[at] ?? '') && sameLetter(chars[at + 1] ?? '', 's');
  if (possessive && !WORD_CHAR.test(chars[at + 2] ?? '')) return at + 2;
  return WORD_CHAR.test(chars[at] ?? '') ? -1 : at;
}

/** One code point the same as another in any letter case ("ẞ" and "ß", "K" and the Kelvin sign). */
function sameLetter(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase();
}
