import { describe, expect, it } from 'vitest';
import { KeywordIndex } from '../../src/search/keyword-index.js';
import { tokenize } from '../../src/text/tokenize.js';
import { rng } from '../../bench/synthetic.js';

// The reference: BM25+ (k1 1.2, b 0.7, delta 0.5) straight from the live texts, summed in f32 in the query's term order.
function reference(live: Map<string, string>, query: string): Map<string, number> {
  const tokens = new Map([...live].map(([id, text]) => [id, tokenize(text)]));
  const total = [...tokens.values()].reduce((n, t) => n + t.length, 0);
  const avg = live.size > 0 ? total / live.size : 1;
  const scores = new Map<string, number>();
  for (const [id, doc] of tokens) {
    let acc = 0;
    for (const term of new Set(tokenize(query))) {
      const tf = doc.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = [...tokens.values()].filter((t) => t.includes(term)).length;
      const idf = Math.log(1 + (live.size - df + 0.5) / (df + 0.5));
      acc = Math.fround(acc + idf * ((tf * 2.2) / (tf + 1.2 * (1 - 0.7 + (0.7 * doc.length) / avg)) + 0.5));
    }
    if (acc > 0) scores.set(id, acc);
  }
  return scores;
}

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

  it('scores every live document as BM25+ over the live documents, through inserts, replacements, deletes and compactions (singleton terms included)', () => {
    const random = rng(77);
    const words = ['apple', 'river', 'stone', 'cloud', 'violin', 'harbor', 'lantern', 'meadow'];
    // Now and then a document long enough (250-299 tokens) that a term it holds once is scored per posting, not looked up by length.
    const long = () => [words[Math.floor(random() * words.length)], ...Array.from({ length: 250 + Math.floor(random() * 50) }, () => `rare${Math.floor(random() * 1e6)}`)].join(' ');
    const text = () => random() < 0.02 ? long() : Array.from({ length: 1 + Math.floor(random() * 6) }, () => (random() < 0.3 ? `rare${Math.floor(random() * 1e6)}` : words[Math.floor(random() * words.length)]!)).join(' ');
    const index = new KeywordIndex();
    const live = new Map<string, string>();
    const check = () => {
      for (const query of ['apple river', 'violin violin harbor', 'meadow', `${[...live.values()][0]?.split(' ').find((w) => w.startsWith('rare')) ?? 'rare1'} stone`]) {
        const want = reference(live, query);
        const got = new Map<string, number>();
        index.query(query, { limit: 10 }).forEach(0, (id, score) => got.set(id, score));
        expect(got).toEqual(want);
      }
      expect(index.size).toBe(live.size);
    };
    for (let step = 0; step < 6000; step++) {
      const id = `d${Math.floor(random() * 1500)}`;
      if (random() < 0.45) {
        index.remove(id);
        live.delete(id);
      } else {
        const t = text();
        index.upsert(id, t);
        live.set(id, t);
      }
      if (step % 1500 === 1499) check();
    }
    check();
  });

  it('scores a term held by many documents (its scores looked up by document length) as the formula does, bit for bit', () => {
    // Enough documents hold the term for the query to tabulate its scores by length; lengths run past the table (256).
    const random = rng(5);
    const live = new Map<string, string>();
    for (let i = 0; i < 1200; i++) {
      const length = 1 + Math.floor(random() * (i % 10 === 0 ? 400 : 40));
      const words = Array.from({ length }, () => `filler${Math.floor(random() * 5000)}`);
      words[Math.floor(random() * length)] = 'apple';
      if (i % 7 === 0) words[Math.floor(random() * length)] = 'apple'; // now and then twice (or still once)
      live.set(`d${i}`, words.join(' '));
    }
    const index = new KeywordIndex();
    for (const [id, text] of live) index.upsert(id, text);
    for (const query of ['apple', `apple ${live.get('d3')!.split(' ').find((w) => w !== 'apple')}`]) {
      const got = new Map<string, number>();
      index.query(query, { limit: 10 }).forEach(0, (id, score) => got.set(id, score));
      expect(got).toEqual(reference(live, query));
      expect(got.size).toBeGreaterThanOrEqual(1200);
    }
  });
});
