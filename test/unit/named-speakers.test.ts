import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { namedSpeakers } from '../../src/search/named-speakers.js';
import { tokenize } from '../../src/text/tokenize.js';
import { speakerNames } from '../support/speaker-names.js';

/** Which of a user's speakers a query names, and the words left to match it by. */
describe('namedSpeakers', () => {
  it('finds whole names, in any letter case, with a possessive, and takes them out of the query', () => {
    expect(namedSpeakers("What is Caroline's favourite book?", ['Caroline', 'Melanie'])).toEqual({ speakers: ['Caroline'], text: 'What is favourite book?' });
    expect(namedSpeakers('did caroline and MELANIE meet?', ['Caroline', 'Melanie']).speakers.sort()).toEqual(['Caroline', 'Melanie']);
    expect(namedSpeakers('What did Caroline’s sister say?', ['Caroline']).text).toBe('What did sister say?');
  });

  it('does not match a name inside another word, or a speaker the query does not name', () => {
    expect(namedSpeakers('Who is Annabel?', ['Ann', 'Bel'])).toEqual({ speakers: [], text: 'Who is Annabel?' });
    expect(namedSpeakers('What did the user say?', ['assistant']).speakers).toEqual([]);
  });

  it('matches a longer name before a shorter one inside it, and names with spaces or regex characters', () => {
    expect(namedSpeakers('What does Ana Maria cook?', ['Ana', 'Ana Maria'])).toEqual({ speakers: ['Ana Maria'], text: 'What does cook?' });
    expect(namedSpeakers('What did Ana  Maria and Ana cook?', ['Ana', 'Ana Maria']).speakers).toEqual(['Ana Maria', 'Ana']);
    expect(namedSpeakers('What did C++ bot (v2) answer?', ['C++ bot (v2)'])).toEqual({ speakers: ['C++ bot (v2)'], text: 'What did answer?' });
    expect(namedSpeakers('What did Dr. Who say?', ['Dr. Who']).speakers).toEqual(['Dr. Who']);
    // '.' in a name is a dot, not any character.
    expect(namedSpeakers('What did Drx Who say?', ['Dr. Who']).speakers).toEqual([]);
  });

  it('names in scripts without spaces match inside the text; diacritics must match as written', () => {
    expect(namedSpeakers('王芳喜欢什么书？', ['王芳'])).toEqual({ speakers: ['王芳'], text: '喜欢什么书？' });
    expect(namedSpeakers('さくらさんは何を食べましたか', ['さくら']).speakers).toEqual(['さくら']);
    expect(namedSpeakers('Qu’a dit José ?', ['José']).speakers).toEqual(['José']);
    expect(namedSpeakers('Qu’a dit Jose ?', ['José']).speakers).toEqual([]);
    // Composed and decomposed forms of one name are one name.
    expect(namedSpeakers('Qu’a dit Jose\u0301 ?', ['José']).speakers).toEqual(['José']);
  });

  it('never matches a name made only of stop words', () => {
    expect(namedSpeakers('What is a cat? Did I say so?', ['A', 'I', 'me'])).toEqual({ speakers: [], text: 'What is a cat? Did I say so?' });
    expect(namedSpeakers('What did the user say?', ['user']).speakers).toEqual(['user']);
  });

  it('keeps a query that is only names, and ignores a speaker with no letter or digit', () => {
    expect(namedSpeakers('Caroline?', ['Caroline'])).toEqual({ speakers: ['Caroline'], text: 'Caroline?' });
    expect(namedSpeakers('what about ?!', ['?!', '', '  '])).toEqual({ speakers: [], text: 'what about ?!' });
  });
});

/** Names are data, never patterns (issue 46): any name a person may have is matched as written. */
describe('namedSpeakers over arbitrary names', () => {
  it('never throws, finds a name the query says, and finds none in a query that does not say it', () => {
    fc.assert(
      fc.property(speakerNames, fc.array(speakerNames, { maxLength: 3 }), (name, others) => {
        const all = [name, ...others];
        const asked = namedSpeakers(`What did ${name} say about the greyhound?`, all);
        // A name with a word in it that is not a stop word is matched; only a longer name said around it may take it.
        if (hasWords(name)) expect(asked.speakers.some((s) => s.normalize('NFC').includes(name.normalize('NFC').trim()))).toBe(true);
        for (const speaker of asked.speakers) expect(all).toContain(speaker);

        const unsaid = namedSpeakers('What happened with the greyhound?', all);
        fc.pre(!all.some((s) => /greyhound|happened|what|with|the/iu.test(s)));
        expect(unsaid).toEqual({ speakers: [], text: 'What happened with the greyhound?' });
      }),
      { seed: 0x46_0001, numRuns: 1000 },
    );
  });

  it('matches a hyphenated, dotted or apostrophed name as written', () => {
    expect(namedSpeakers('What did Jean-Luc say?', ['Jean-Luc'])).toEqual({ speakers: ['Jean-Luc'], text: 'What did say?' });
    expect(namedSpeakers("Where is O'Brien's house?", ["O'Brien"]).speakers).toEqual(["O'Brien"]);
    expect(namedSpeakers('What did Jean Luc say?', ['Jean-Luc']).speakers).toEqual([]);
    expect(namedSpeakers('Did J.R.R. write?', ['J.R.R.']).speakers).toEqual(['J.R.R.']);
  });
});

/** A name the matcher looks for: it has a letter or digit, and a word that is not a stop word. */
function hasWords(name: string): boolean {
  return /[\p{L}\p{N}]/u.test(name) && tokenize(name).length > 0;
}
