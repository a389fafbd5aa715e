import fc from 'fast-check';
import { speakerSchema } from '../../src/schema/turn.js';

/**
 * Pieces a person's name may hold, chosen for what breaks a pattern built
 * from a name: every regular-expression metacharacter (and `-`, which is a
 * bad escape under the `u` flag), apostrophes, dots, combining marks, RTL
 * scripts and marks, emoji sequences, unspaced scripts, and odd spaces.
 */
const PIECES = [
  'Jean', '-', 'Luc', 'Jean-Luc', 'Anne-Marie', 'Smith-Jones', "O'Brien", 'd’Arc', 'Dr.', 'St.', 'Ana', 'Maria', 'x',
  '.', '*', '+', '?', '^', '$', '{', '}', '(', ')', '|', '[', ']', '\\', '/', ',', ':', '=', '!', '<', '>', '#', '&', '~', '`', '"', '%', '@',
  '\\d', '\\p{L}', '(?<n>', '$&', '$1', '\\k<n>', '[^a]', '.*', 'a{2,}', '\\u{1F600}', '\\b',
  'e\u0301', '\u0301', 'n\u0303', 'Zoë', 'Zoe\u0308', 'A\u030a',
  'שלום', 'محمد', 'فاطمة', '\u200f', '\u200e', '\u202e', '\u061c',
  '👩‍👩‍👧', '🇫🇷', '👍🏽', '🙂', '\u{10FFFF}',
  '王芳', 'さくら', 'สมชาย', '김민준', 'Ærøskøbing', 'Σωκράτης', 'Ыы', 'ß', 'İ', 'ſ',
  ' ', '\u00a0', '\u2003', '\u3000',
];

/** A speaker name the turn schema accepts, built from the pieces above and arbitrary text. */
export const speakerNames: fc.Arbitrary<string> = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }) }), {
    minLength: 1,
    maxLength: 5,
  })
  .map((parts) => parts.join(''))
  .filter((name) => speakerSchema.safeParse(name).success);
