import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rng } from '../../bench/synthetic.js';
import { encodeDocs, readColumns } from '../../src/search/doc-columns.js';
import type { IndexDoc } from '../../src/search/index-doc.js';
import { KeywordIndex } from '../../src/search/keyword-index.js';
import { textFingerprints } from '../../src/search/text-fingerprint.js';
import { readTermLists, termListsOf } from '../../src/search/term-lists.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { resolveRanking, type Ranking, type RankingOptions } from '../../src/search/ranking.js';
import { VectorMatrix } from '../../src/search/vector-matrix.js';
import type { MemoryType } from '../../src/schema/common.js';
import { loadBatch, loadEntries } from '../../src/index-sync/index-loader.js';

/**
 * `MemoryIndex.search(k)` must return exactly the first k of the full
 * ranking: every memory of the user that passes the filters, scored by the
 * formula below, sorted by score then id. Pinned memories, importance, ages
 * and keyword matches can lift a memory from anywhere, so no candidate pool
 * may decide the answer. The brute force here scores every memory plainly;
 * its cosine is the f32 kernel's score of the row (what recall reports), from
 * a matrix that scans every row in f32.
 */

const DAY = 86_400_000;
const NOW = 1_700_000_000_000;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
const TAGS = ['a', 'b', 'c'];
const LAST_WEEK = [{ text: 'last week', grain: 'week' as const, offset: -1 }];
/** Speakers of turns; 'Dee' has none, so naming her changes nothing. */
const SPEAKERS = ['Ana', 'Bo', 'Cy'];

interface Memory {
  doc: IndexDoc;
  text: string;
  vector: Float32Array;
}

interface Store {
  index: MemoryIndex;
  /** What the index should hold now, by id. */
  live: Map<string, Memory>;
  dim: number;
  simd: boolean;
}

const storeArb = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  n: fc.integer({ min: 1, max: 400 }),
  dim: fc.constantFrom(8, 16, 33),
  simd: fc.boolean(),
  quantize: fc.boolean(),
  pinnedShare: fc.constantFrom(0, 0.05, 0.3, 1),
  /** Share of memories whose text gives a relative time (boosted on a question about time). */
  datedShare: fc.constantFrom(0, 0.1, 0.5),
  /** Share of memories whose vector repeats an earlier one (equal cosines, so ties). */
  duplicateShare: fc.constantFrom(0, 0.2),
  /** Share of memories loaded as one snapshot batch (columns) rather than one by one. */
  batchShare: fc.constantFrom(0, 0.5, 1),
});

type StoreSpec = typeof storeArb extends fc.Arbitrary<infer T> ? T : never;

const weight = (usual: number, max: number) => fc.oneof(fc.constant(0), fc.constant(usual), fc.double({ min: 0, max, noNaN: true }));
const rankingArb: fc.Arbitrary<RankingOptions> = fc.record(
  {
    denseWeight: fc.oneof(fc.constant(1), fc.constant(0), fc.constant(0.4), fc.double({ min: 0, max: 1, noNaN: true })),
    weights: fc.record({ similarity: weight(1, 3), importance: weight(0.05, 2), recency: weight(0.05, 2), pinned: weight(0.1, 2) }),
    halfLifeDays: fc.oneof(fc.constant(30), fc.double({ min: 0.01, max: 1000, noNaN: true })),
    sourceWeights: fc.record({ episode: weight(1, 3), fact: weight(1, 3), turn: weight(1, 3) }),
    speakerBoost: weight(0.2, 5),
    boostFloor: weight(0.1, 2),
  },
  { requiredKeys: [] },
);

const filterArb = fc.record(
  {
    types: fc.subarray<MemoryType>(['fact', 'episode', 'turn'], { minLength: 1 }),
    tags: fc.subarray(TAGS, { minLength: 1 }),
    since: fc.integer({ min: NOW - 400 * DAY, max: NOW }),
    until: fc.integer({ min: NOW - 400 * DAY, max: NOW }),
    includeArchived: fc.boolean(),
  },
  { requiredKeys: [] },
);

const queryArb = fc.record({
  /** -1: a fresh random vector; otherwise a stored memory's vector (its cosine ties with its duplicates). */
  like: fc.integer({ min: -1, max: 50 }),
  words: fc.subarray([...WORDS, 'zulu'], { maxLength: 4 }),
  k: fc.oneof(fc.constant(10), fc.integer({ min: 1, max: 60 }), fc.constant(1000)),
  /** The boost of dated memories in this search (0 unless the query asks about time: rankingFor). */
  timeBoost: fc.oneof(fc.constant(0), fc.constant(0.2), fc.double({ min: 0, max: 10, noNaN: true })),
  /** The speakers this query names (recall finds them with MemoryIndex.namedSpeakers: rankingFor). */
  named: fc.subarray([...SPEAKERS, 'Dee']),
});

function unit(dim: number, random: () => number): Float32Array {
  const v = Float32Array.from({ length: dim }, () => random() * 2 - 1);
  let sum = 0;
  for (const x of v) sum += x * x;
  return v.map((x) => x / Math.sqrt(sum));
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function randomDoc(id: string, userId: string, random: () => number, pinnedShare: number, datedShare: number): IndexDoc {
  const roll = random();
  const kind = roll < 0.05 ? 'task' : roll < 0.35 ? 'fact' : roll < 0.65 ? 'episode' : 'turn';
  return {
    id,
    userId,
    kind,
    createdAt: NOW - Math.floor(random() * 400 * DAY),
    // Some touched in the future of `now` (another device's clock): their age counts as 0.
    touchedAt: NOW - Math.floor((random() - 0.05) * 200 * DAY),
    tags: TAGS.filter(() => random() < 0.4),
    importance: pick(random, [0, 0.5, 1, random()]),
    pinned: random() < pinnedShare,
    archived: random() < 0.1,
    times: random() < datedShare ? LAST_WEEK : [],
    fields: kind === 'turn' ? { speaker: pick(random, SPEAKERS) } : {},
  };
}

function randomText(random: () => number): string {
  return Array.from({ length: 2 + Math.floor(random() * 8) }, () => pick(random, WORDS)).join(' ');
}

/** A store built by every write path the index has (batch load, load, upsert), then changed: removes, re-pins, new vectors. */
function buildStore(spec: StoreSpec): Store {
  const { seed, n, dim, simd, quantize, pinnedShare, datedShare, duplicateShare, batchShare } = spec;
  const random = rng(seed);
  const index = new MemoryIndex(dim, { simd, quantize });
  const live = new Map<string, Memory>();
  const vectors: Float32Array[] = [];
  const memories: Memory[] = [];
  for (let i = 0; i < n + Math.ceil(n / 5); i++) {
    // Every sixth memory belongs to another user, whom no search below may see.
    const userId = i % 6 === 5 ? 'other' : 'u';
    const vector = vectors.length > 0 && random() < duplicateShare ? pick(random, vectors) : unit(dim, random);
    vectors.push(vector);
    memories.push({ doc: randomDoc(`m${String(i).padStart(4, '0')}`, userId, random, pinnedShare, datedShare), text: randomText(random), vector });
  }
  const batched = memories.slice(0, Math.floor(memories.length * batchShare));
  if (batched.length > 0) {
    const docs = readColumns(structuredClone(encodeDocs(batched.map((m) => m.doc))))!;
    const joined = new Float32Array(batched.length * dim);
    batched.forEach((m, i) => joined.set(m.vector, i * dim));
    loadBatch(index, { docs, fingerprints: textFingerprints(batched.map((m) => m.text)), lists: readTermLists(termListsOf(batched.map((m) => m.text)), batched.length)!, vectors: joined });
  }
  const rest = memories.slice(batched.length);
  const half = Math.floor(rest.length / 2);
  loadEntries(index, rest.slice(0, half));
  for (const m of rest.slice(half)) index.upsert(m);
  for (const m of memories) live.set(m.doc.id, m);

  for (const m of memories) {
    const roll = random();
    if (roll < 0.1) {
      index.remove(m.doc.id);
      live.delete(m.doc.id);
    } else if (roll < 0.2) {
      // A turn's speaker changes too: the index must forget the old one (its row code and its count of rows).
      const fields = m.doc.kind === 'turn' ? { speaker: pick(random, SPEAKERS) } : m.doc.fields;
      const doc = { ...m.doc, fields, pinned: !m.doc.pinned, times: random() < datedShare ? LAST_WEEK : [], importance: random(), touchedAt: NOW - Math.floor(random() * 30 * DAY) };
      index.updateDoc(doc);
      live.set(doc.id, { ...m, doc });
    } else if (roll < 0.25) {
      const moved = { ...m, vector: unit(dim, random), text: randomText(random) };
      index.upsert(moved);
      live.set(m.doc.id, moved);
    }
  }
  // New memories after the removals: their rows are ones that removed rows left (the index must not read those rows' old values).
  for (let i = 0; i < Math.ceil(n / 10); i++) {
    const m = { doc: randomDoc(`n${String(i).padStart(4, '0')}`, 'u', random, pinnedShare, datedShare), text: randomText(random), vector: unit(dim, random) };
    index.upsert(m);
    live.set(m.doc.id, m);
  }
  return { index, live, dim, simd };
}

type Filter = { types?: MemoryType[]; tags?: string[]; since?: number; until?: number; includeArchived?: boolean };

function passes(doc: IndexDoc, f: Filter): boolean {
  if (doc.archived && !f.includeArchived) return false;
  if (f.types && !f.types.includes(doc.kind as MemoryType)) return false;
  if (f.since !== undefined && doc.createdAt < f.since) return false;
  if (f.until !== undefined && doc.createdAt > f.until) return false;
  if (f.tags && !doc.tags.some((t) => f.tags!.includes(t))) return false;
  return true;
}

/** Every memory of user u that passes the filter, scored, sorted by score then id. */
function fullRanking(store: Store, query: { vector: Float32Array; text: string }, filter: Filter, r: Ranking) {
  const mine = [...store.live.values()].filter((m) => m.doc.userId === 'u');
  const f32 = new VectorMatrix(store.dim, { quantize: false, simd: store.simd });
  const keywords = new KeywordIndex();
  for (const m of mine) {
    f32.upsert(m.doc.id, m.vector);
    keywords.upsert(m.doc.id, m.text);
  }
  const cosine = new Map(f32.topK(query.vector, f32.size).map((h) => [h.id, h.score]));
  const bm25 = keywords.query(query.text, { limit: mine.length });
  const accepted = mine.filter((m) => passes(m.doc, filter));
  const best = Math.max(0, ...accepted.map((m) => bm25.scoreOf(m.doc.id)));
  return accepted
    .map(({ doc }) => {
      const keyword = best > 0 ? bm25.scoreOf(doc.id) / best : 0;
      const relevance = r.denseWeight * Math.max(0, cosine.get(doc.id)!) + (1 - r.denseWeight) * keyword;
      const recency = Math.pow(0.5, Math.max(0, NOW - doc.touchedAt) / r.halfLifeMs);
      const w = r.weights;
      const timed = doc.times.length > 0 && r.timeBoost > 0 ? r.sourceWeights[doc.kind] * (1 + r.timeBoost) : r.sourceWeights[doc.kind];
      const named = doc.kind === 'turn' && r.speakerBoost > 0 && r.namedSpeakers.has(doc.fields.speaker as string);
      const multiplier = named ? timed * (1 + r.speakerBoost) : timed;
      const score = multiplier * (w.similarity * relevance + r.boostFloor + w.importance * doc.importance + w.recency * recency + w.pinned * (doc.pinned ? 1 : 0));
      return { id: doc.id, score, keyword, speakerMatch: named ? 1 + r.speakerBoost : undefined };
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

describe('MemoryIndex.search is exact', () => {
  it('returns the first k of the full ranking (ids and scores), whatever the pins, importance, ages, dates, speakers, weights, keywords and filters', () => {
    fc.assert(
      fc.property(storeArb, fc.array(fc.tuple(rankingArb, filterArb, queryArb), { minLength: 1, maxLength: 4 }), (spec, searches) => {
        const store = buildStore(spec);
        const stored = [...store.live.values()].filter((m) => m.doc.userId === 'u');
        // The speakers the index knows are exactly those of the user's live turns, after every add, move, change and removal.
        const speakers = new Set(stored.flatMap((m) => (m.doc.kind === 'turn' ? [m.doc.fields.speaker as string] : [])));
        expect(store.index.namedSpeakers('u', 'Ana, Bo, Cy and Dee').speakers.sort()).toEqual([...speakers].sort());
        for (const [options, filter, q] of searches) {
          const ranking = { ...resolveRanking(options), timeBoost: q.timeBoost, namedSpeakers: new Set(q.named) };
          const vector = q.like >= 0 && stored.length > 0 ? stored[q.like % stored.length]!.vector : unit(spec.dim, rng(spec.seed + q.like + 7));
          const query = { vector, text: q.words.join(' ') };
          const expected = fullRanking(store, query, filter, ranking).slice(0, q.k);
          const hits = store.index.search('u', query, { ...filter, k: q.k, ranking, now: NOW });
          expect(hits.map((h) => ({ id: h.id, score: h.score }))).toEqual(expected.map(({ id, score }) => ({ id, score })));
          // The keyword part is normalised by the best match among the filtered memories, not among some pool.
          if (ranking.denseWeight < 1) expect(hits.map((h) => h.parts.keyword)).toEqual(expected.map((e) => e.keyword));
          expect(hits.map((h) => h.parts.speakerMatch)).toEqual(expected.map((e) => e.speakerMatch));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('finds a pinned memory far below the dense top k, and a keyword match with no dense similarity', () => {
    const dim = 16;
    const random = rng(5);
    const index = new MemoryIndex(dim);
    const query = unit(dim, random);
    const doc = (id: string, pinned: boolean): IndexDoc => ({ id, userId: 'u', kind: 'fact', createdAt: NOW, touchedAt: NOW, tags: [], importance: 0.5, pinned, archived: false, times: [], fields: {} });
    // 2,000 memories whose cosine falls with their number; only m1999 is pinned, only m1998 mentions "zebra".
    for (let i = 0; i < 2000; i++) {
      const noise = unit(dim, random);
      const v = query.map((x, j) => x * (1 - i / 2000) + noise[j]! * (i / 100));
      const norm = Math.hypot(...v);
      index.upsert({ doc: doc(`m${i}`, i === 1999), text: i === 1998 ? 'zebra crossing' : `note ${i}`, vector: v.map((x) => x / norm) });
    }
    const ranking = resolveRanking({ weights: { pinned: 1 } });
    const top = index.search('u', { vector: query, text: 'zebra' }, { k: 3, ranking, now: NOW }).map((h) => h.id);
    expect(top).toEqual(['m1999', 'm1998', 'm0']);
  });

  /** n memories m0000…, whose cosine with the returned query falls with their number; `doc` gives each its other parts. */
  function fallingCosines(seed: number, n: number, doc: (i: number) => Pick<IndexDoc, 'kind' | 'times' | 'fields'>) {
    const dim = 16;
    const random = rng(seed);
    const index = new MemoryIndex(dim);
    const query = unit(dim, random);
    for (let i = 0; i < n; i++) {
      const noise = unit(dim, random);
      const v = query.map((x, j) => x * (1 - i / n) + noise[j]! * (i / n));
      const norm = Math.hypot(...v);
      const base = { id: `m${String(i).padStart(4, '0')}`, userId: 'u', createdAt: NOW, touchedAt: NOW, tags: [], importance: 0.5, pinned: false, archived: false };
      index.upsert({ doc: { ...base, ...doc(i) }, text: `note ${i}`, vector: v.map((x) => x / norm) });
    }
    return { index, query };
  }

  it('finds a dated memory below the dense top k on a question about time, and only then', () => {
    // Only m0300 gives a relative time ("last week"). Dense only, so the boost alone can lift it.
    const { index, query } = fallingCosines(9, 400, (i) => ({ kind: 'fact', times: i === 300 ? LAST_WEEK : [], fields: {} }));
    const ranking = resolveRanking({ denseWeight: 1, weights: { importance: 0, recency: 0, pinned: 0 }, boostFloor: 0, timeQuestionBoost: 4 });
    const asked = index.search('u', { vector: query, text: '' }, { k: 3, ranking: { ...ranking, timeBoost: 4 }, now: NOW });
    const plain = index.search('u', { vector: query, text: '' }, { k: 3, ranking, now: NOW });
    expect(plain.map((h) => h.id)).toEqual(['m0000', 'm0001', 'm0002']);
    expect(asked.map((h) => h.id)).toEqual(['m0300', 'm0000', 'm0001']);
    expect(asked[0]!.parts.timeMatch).toBe(5);
    expect(asked[0]!.score).toBe(5 * asked[0]!.parts.similarity);
    expect(asked[1]!.parts.timeMatch).toBeUndefined();
  });

  it('finds a turn of a named speaker below the dense top k, only when named; a speaker whose turns are gone is not named', () => {
    // m0200 is the only turn by Bo, the rest are Ana's. Dense only, so the boost alone can lift it.
    const { index, query } = fallingCosines(11, 300, (i) => ({ kind: 'turn', times: [], fields: { speaker: i === 200 ? 'Bo' : 'Ana' } }));
    const ranking = resolveRanking({ denseWeight: 1, weights: { importance: 0, recency: 0, pinned: 0 }, boostFloor: 0, speakerBoost: 4 });
    const named = index.namedSpeakers('u', "What is Bo's favourite note?");
    expect(named).toEqual({ speakers: ['Bo'], text: 'What is favourite note?' });
    const asked = index.search('u', { vector: query, text: '' }, { k: 3, ranking: { ...ranking, namedSpeakers: new Set(named.speakers) }, now: NOW });
    const plain = index.search('u', { vector: query, text: '' }, { k: 3, ranking, now: NOW });
    expect(plain.map((h) => h.id)).toEqual(['m0000', 'm0001', 'm0002']);
    expect(asked.map((h) => h.id)).toEqual(['m0200', 'm0000', 'm0001']);
    expect(asked[0]!.parts.speakerMatch).toBe(5);
    expect(asked[0]!.score).toBe(5 * asked[0]!.parts.similarity);
    expect(asked[1]!.parts.speakerMatch).toBeUndefined();
    // Bo's one turn is removed (after Ana's rows moved around it): Bo is no longer a speaker, so no longer named.
    index.remove('m0100');
    index.remove('m0200');
    expect(index.namedSpeakers('u', "What is Bo's favourite note?")).toEqual({ speakers: [], text: "What is Bo's favourite note?" });
    expect(index.namedSpeakers('u', 'What did ana say?').speakers).toEqual(['Ana']);
    expect(index.namedSpeakers('other', 'What did Ana say?').speakers).toEqual([]);
  });
});
