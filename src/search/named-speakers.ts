import { tokenize } from './tokenize.js';

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
 * 1 + `speakerBoost` instead (search/ranking.ts). On LoCoMo dev (npm run
 * bench:locomo) this lifts hybrid recall@10 of turns from 0.759 (names in
 * the indexed text) to the figure the README gives.
 *
 * A name matches whole words, case-insensitively, with an optional
 * possessive ('s); a longer name is matched before a shorter one it
 * contains ("Ana Maria" before "Ana"); names in scripts written without
 * spaces (Chinese, Japanese, Thai…) match inside a run of text. When the
 * names are all the query says, the query keeps them (a query of no words
 * would match nothing). A name made only of stop words ("I", "me", "Will") is
 * never matched: it would be found in almost every query. Diacritics must
 * match as written.
 */
export function namedSpeakers(query: string, speakers: Iterable<string>): NamedSpeakers {
  const named: string[] = [];
  let text = query.normalize('NFC');
  const longestFirst = [...speakers].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  for (const speaker of longestFirst) {
    const pattern = namePattern(speaker);
    if (!pattern) continue;
    const without = text.replace(pattern, ' ');
    if (without === text) continue;
    named.push(speaker);
    text = without;
  }
  if (named.length === 0) return { speakers: named, text: query };
  const rest = text.replace(/\s+/gu, ' ').trim();
  return { speakers: named, text: WORD.test(rest) ? rest : query };
}

const WORD = /[\p{L}\p{N}]/u;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const SPECIAL = /[.*+?^${}()|[\]\\/-]/g;

/** Compiled patterns by name: a user's speakers are few and asked about on every recall. */
const patterns = new Map<string, RegExp | null>();
const PATTERNS_MAX = 10_000;

/** The whole-word, case-insensitive pattern of a name, or null for a name with no letter or digit, or only stop words. */
function namePattern(name: string): RegExp | null {
  let pattern = patterns.get(name);
  if (pattern !== undefined) return pattern;
  const trimmed = name.normalize('NFC').trim();
  if (!WORD.test(trimmed) || tokenize(trimmed).length === 0) pattern = null;
  else {
    const body = trimmed.split(/\s+/u).map((part) => part.replace(SPECIAL, '\\$&')).join('\\s+');
    // A word boundary where the name's edge is in a spaced script; none inside unspaced text.
    const chars = [...trimmed];
    const before = UNSPACED.test(chars[0]!) ? '' : '(?<![\\p{L}\\p{N}\\p{M}])';
    const after = UNSPACED.test(chars.at(-1)!) ? '' : '(?:[\'’]s)?(?![\\p{L}\\p{N}\\p{M}])';
    pattern = new RegExp(`${before}${body}${after}`, 'giu');
  }
  if (patterns.size >= PATTERNS_MAX) patterns.clear();
  patterns.set(name, pattern);
  return pattern;
}
