import { stemmer } from 'stemmer';
import { STOPWORDS } from './stopwords.js';

/**
 * Text → index terms: words, lower-cased, stop words dropped, English words
 * Porter-stemmed ("paintings" and "painted" both become "paint"), so a
 * question finds a memory that says the same thing with another form of a word.
 *
 * Any language:
 * - Scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer,
 *   Myanmar) are split into words by `Intl.Segmenter` (the platform's
 *   dictionary-based word breaker), not left as one clause-long token.
 * - Latin letters lose their diacritics ("Zürich" and "Zurich", "café" and
 *   "cafe" are one term); other scripts keep their marks (a Japanese
 *   dakuten or a Devanagari vowel sign is part of the word).
 * - Only ASCII words are stemmed: the Porter stemmer is for English.
 * Plain ASCII text takes the original fast path.
 */
/**
 * Names what `tokenize` returns for every text. The index snapshot keeps its
 * pages' terms (search/term-lists.ts) and uses them only under the same
 * version: bump it with any change to the terms of any text (the rules
 * here, the stop words, the stemmer's version).
 */
export const TOKENIZER_VERSION = 1;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  if (ASCII.test(text)) {
    for (const raw of text.toLowerCase().split(SEPARATORS)) addTerm(raw, out);
    return out;
  }
  const lower = foldLatinMarks(text.toLowerCase().normalize('NFC'));
  for (const chunk of lower.split(SEPARATORS)) {
    if (!UNSPACED_SCRIPT.test(chunk)) addTerm(chunk, out);
    else for (const word of segmentWords(chunk)) addTerm(word, out);
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/u;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const ASCII_WORD = /^[a-z0-9]+$/;

function addTerm(raw: string, out: string[]): void {
  if (raw.length === 0 || raw.length > 64 || STOPWORDS.has(raw)) return;
  out.push(ASCII_WORD.test(raw) ? stem(raw) : raw);
}

/** Latin base letters without their combining marks; marks on other scripts stay. */
function foldLatinMarks(text: string): string {
  return text.normalize('NFD').replace(LATIN_WITH_MARKS, '$1').normalize('NFC');
}
const LATIN_WITH_MARKS = /(\p{Script=Latin})\p{M}+/gu;

let segmenter: Intl.Segmenter | undefined;
function segmentWords(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const words: string[] = [];
  for (const part of segmenter.segment(text)) if (part.isWordLike) words.push(part.segment);
  return words;
}

// Vocabularies are Zipfian: a small cache of stems saves most stemmer calls,
// which were a large part of building the keyword postings.
const STEM_CACHE_MAX = 50_000;
const stems = new Map<string, string>();

function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    stems.set(word, s);
  }
  return s;
}
