import { describe, expect, it } from 'vitest';
import { KeywordIndex } from '../../src/search/keyword-index.js';
import { tokenize } from '../../src/search/tokenize.js';

describe('tokenize', () => {
  it('lower-cases, drops stop words and stems', () => {
    expect(tokenize('The Paintings were PAINTED in Porto!')).toEqual(['paint', 'paint', 'porto']);
  });

  it('splits Chinese and Japanese into words (Intl.Segmenter), not one clause-long token', () => {
    expect(tokenize('这是一个中文句子。我喜欢喝茶')).toEqual(['这', '是', '一个', '中文', '句子', '我', '喜欢', '喝茶']);
    expect(tokenize('東京で寿司を食べました。')).toEqual(expect.arrayContaining(['東京', '寿司']));
    // A long unspaced run is not dropped as one over-long token.
    expect(tokenize('東京で寿司を食べました'.repeat(8)).length).toBeGreaterThan(16);
  });

  it('folds Latin diacritics, keeps marks that belong to other scripts, and stems only English words', () => {
    expect(tokenize('Zürich café São Paulo')).toEqual(['zurich', 'cafe', 'sao', 'paulo']);
    expect(tokenize('Zurich cafe')).toEqual(['zurich', 'cafe']);
    // Combining characters typed separately (NFD) are the same terms as precomposed ones.
    expect(tokenize('Zu\u0308rich')).toEqual(['zurich']);
    // The Japanese voiced mark and Devanagari vowel signs are part of their words.
    expect(tokenize('が か')).toEqual(['が', 'か']);
    expect(tokenize('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    // The Porter stemmer would mangle non-English words; they are kept whole.
    expect(tokenize('Ærøskøbing')).toEqual(['ærøskøbing']);
  });
});

describe('KeywordIndex (BM25+)', () => {
  it('ranks rarer and more frequent terms higher and normalises for length', () => {
    const index = new KeywordIndex();
    index.upsert('a', 'guitar lessons on tuesday');
    index.upsert('b', 'piano lessons on tuesday');
    index.upsert('c', 'guitar guitar practice');
    index.upsert('d', 'a very long note that mentions guitar once among many many other words about the weekend plans');
    const result = index.query('guitar', { limit: 10 });
    expect(result.hits.map((h) => h.id)).toEqual(['c', 'a', 'd']);
    expect(result.best).toBe(result.hits[0]!.score);
    expect(result.scoreOf('b')).toBe(0);
    expect(result.scoreOf('a')).toBe(result.hits[1]!.score);
  });

  it('forgets removed and replaced documents, across compaction', () => {
    const index = new KeywordIndex();
    for (let i = 0; i < 3000; i++) index.upsert(`n${i}`, i % 2 ? `odd cactus ${i}` : `even fern ${i}`);
    for (let i = 0; i < 3000; i += 2) index.remove(`n${i}`); // 1,500 tombstones → compaction
    index.upsert('n1', 'now a fern');
    expect(index.size).toBe(1500);
    const ferns = index.query('fern', { limit: 5000 }).hits.map((h) => h.id);
    expect(ferns).toEqual(['n1']);
    expect(index.query('cactus', { limit: 5000 }).hits).toHaveLength(1499);
  });

  it('applies accept to the returned hits', () => {
    const index = new KeywordIndex();
    index.upsert('x', 'tea');
    index.upsert('y', 'tea tea');
    expect(index.query('tea', { limit: 5, accept: (id) => id === 'x' }).hits.map((h) => h.id)).toEqual(['x']);
  });
});
