import { describe, expect, it } from 'vitest';
import { KeywordIndex } from '../../src/search/keyword-index.js';
import { readTermLists, termListsOf, type TermLists } from '../../src/search/term-lists.js';
import { TOKENIZER_VERSION } from '../../src/text/tokenize.js';
import { rng } from '../../bench/synthetic.js';

/**
 * Term lists (src/search/term-lists.ts): the postings a snapshot page's
 * lists build are the postings its texts build, so a keyword query ranks
 * and scores the same either way.
 */
const WORDS = ['guitar', 'guitars', 'piano', 'lessons', 'Tuesday', 'Zürich', 'café', 'the', 'and', 'hiking', 'Porto', '東京で寿司を食べました', 'हिन्दी', 'x'];

function texts(count: number, seed: number): string[] {
  const random = rng(seed);
  return Array.from({ length: count }, (_, i) => {
    if (i % 97 === 0) return ''; // no terms at all
    if (i % 89 === 0) return 'the and of'; // stop words only
    const words = Array.from({ length: 1 + Math.floor(random() * 12) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
    return `${words.join(random() < 0.5 ? ' ' : ', ')} #${i}`;
  });
}

const QUERIES = ['guitar lessons', 'piano on tuesday', 'zurich cafe', '東京', 'हिन्दी', 'hiking porto x', '#17', 'nothing matches this'];

/** Every query's hits (ids and scores, bit for bit) and the raw score of every document. */
function answers(index: KeywordIndex, ids: string[]): unknown[] {
  return QUERIES.map((q) => {
    const result = index.query(q, { limit: 20 });
    return [result.hits, ids.map((id) => result.scoreOf(id))];
  });
}

describe('term lists', () => {
  it('build the same postings as the texts: same hits, bit-identical scores', () => {
    const docs = texts(3000, 7);
    const ids = docs.map((_, i) => `m${i}`);
    const fromTexts = new KeywordIndex();
    docs.forEach((text, i) => fromTexts.upsert(ids[i]!, text));
    const fromLists = new KeywordIndex();
    const lists = readTermLists(termListsOf(docs), docs.length)!;
    // In uneven runs, as the background build takes them.
    for (let start = 0; start < docs.length; start += 64 + (start % 7)) fromLists.upsertLists(ids, lists, start, Math.min(docs.length, start + 64 + (start % 7)));
    expect(fromLists.size).toBe(docs.length);
    expect(answers(fromLists, ids)).toEqual(answers(fromTexts, ids));
  });

  it('rewriting known documents from lists (a compaction in the middle of the run) matches rewriting them from texts', () => {
    const docs = texts(3000, 8);
    const rewritten = texts(3000, 9);
    const ids = docs.map((_, i) => `m${i}`);
    const fromTexts = new KeywordIndex();
    const fromLists = new KeywordIndex();
    for (const index of [fromTexts, fromLists]) {
      docs.forEach((text, i) => index.upsert(ids[i]!, text));
      // 1,000 deletes: the next removal (the first rewrite) compacts, renumbering every term.
      for (let i = 0; i < 1000; i++) index.remove(ids[i * 3]!);
    }
    // New documents with a new term first, so it is numbered (after every term the compaction drops) and looked
    // up before the compaction numbers the terms again; the rewrites that follow use it too.
    const rest = [...Array.from({ length: 50 }, (_, i) => `m${3000 + i}`), ...ids.filter((_, i) => i % 3 !== 0)];
    const textOf = (id: string) => `zebra ${rewritten[Number(id.slice(1)) % 3000]!}`;
    const lists = readTermLists(termListsOf(rest.map(textOf)), rest.length)!;
    fromLists.upsertLists(rest, lists, 0, rest.length);
    rest.forEach((id) => fromTexts.upsert(id, textOf(id)));
    expect(fromLists.size).toBe(2050);
    expect(answers(fromLists, rest)).toEqual(answers(fromTexts, rest));
  });

  it("counted first (expectLists), lists build each term's arrays once at their final size, with the same answers; a compaction in the middle of the run still matches the texts", () => {
    const docs = texts(6000, 10);
    const ids = docs.map((_, i) => `m${i}`);
    const fromTexts = new KeywordIndex();
    docs.forEach((text, i) => fromTexts.upsert(ids[i]!, text));
    // Three pages of lists, all counted before any is built, as PendingKeywords drains them.
    const pages = [0, 2048, 4096].map((start) => ({ start, lists: readTermLists(termListsOf(docs.slice(start, start + 2048)), Math.min(2048, docs.length - start))! }));
    const fromLists = new KeywordIndex();
    for (const { lists } of pages) fromLists.expectLists(lists, 0, lists.length.length);
    for (const { start, lists } of pages) {
      const pageIds = ids.slice(start, start + 2048);
      for (let at = 0; at < pageIds.length; at += 64) fromLists.upsertLists(pageIds, lists, at, Math.min(pageIds.length, at + 64));
    }
    // Each term's rows: never grown, so exactly as long as its postings (or 4, the least an array is given).
    const inside = fromLists as unknown as { count: number[]; rows: (Int32Array | undefined)[] };
    const lengths = inside.rows.flatMap((rows, term) => (rows ? [[rows.length, Math.max(4, inside.count[term]!)]] : []));
    expect(lengths.length).toBeGreaterThan(10);
    for (const [length, postings] of lengths) expect(length).toBe(postings);
    fromLists.trim();
    expect(answers(fromLists, ids)).toEqual(answers(fromTexts, ids));

    // Counted, then a compaction (1,000 removals and a third of the rows dead) renumbers the terms before the lists are built.
    const again = new KeywordIndex();
    docs.slice(0, 3000).forEach((text, i) => again.upsert(ids[i]!, text));
    const later = readTermLists(termListsOf(docs.slice(3000)), 3000)!;
    again.expectLists(later, 0, 3000);
    for (let i = 0; i < 1001; i++) again.remove(ids[i]!);
    again.upsertLists(ids.slice(3000), later, 0, 3000);
    again.trim();
    const reference = new KeywordIndex();
    docs.forEach((text, i) => i > 1000 && reference.upsert(ids[i]!, text));
    expect(again.size).toBe(reference.size);
    expect(answers(again, ids)).toEqual(answers(reference, ids));
  });

  it('keeps frequencies and lengths: a term repeated in a text counts each time', () => {
    const lists = termListsOf(['guitar guitar guitar piano', 'piano']);
    expect(lists.terms.split('\n')).toEqual(['guitar', 'piano']);
    expect([...lists.start]).toEqual([0, 2, 3]);
    expect([...lists.term]).toEqual([0, 1, 1]);
    expect([...lists.freq]).toEqual([3, 1, 1]);
    expect([...lists.length]).toEqual([4, 1]);
  });

  it('are not used when made by another tokenizer version or when they do not fit the page', () => {
    const good = termListsOf(['guitar lessons', 'piano lessons']);
    expect(readTermLists(good, 2)?.terms).toEqual(['guitar', 'lesson', 'piano']);
    const damaged: [string, (l: TermLists) => unknown][] = [
      ['another tokenizer', (l) => ({ ...l, version: TOKENIZER_VERSION + 1 })],
      ['a term out of range', (l) => ({ ...l, term: Uint16Array.of(0, 1, 3, 1) })],
      ['starts that go back', (l) => ({ ...l, start: Uint32Array.of(0, 3, 2) })],
      ['a frequency of 0', (l) => ({ ...l, freq: Uint16Array.of(1, 0, 1, 1) })],
      ['a plain array', (l) => ({ ...l, term: [...l.term] })],
      ['missing lengths', (l) => ({ ...l, length: undefined })],
      ['not an object', () => 'lists'],
    ];
    for (const [what, damage] of damaged) expect(readTermLists(damage(good), 2), what).toBeUndefined();
    expect(readTermLists(good, 3), 'another document count').toBeUndefined();
    expect(readTermLists(undefined, 2), 'a page saved without them').toBeUndefined();
  });
});
