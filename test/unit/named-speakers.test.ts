import { describe, expect, it } from 'vitest';
import { namedSpeakers } from '../../src/search/named-speakers.js';

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
