/**
 * Ranking ideas on the LoCoMo dev turn memory, measured as reranks of what
 * recall scores, each with its parameter chosen by leave-one-conversation-out
 * (chosen on four conversations by hybrid R@10, scored on the fifth), so the
 * figure printed is held out. Research data (CC BY-NC 4.0): read at run time,
 * never shipped; the cache of scores (IDEAS_CACHE, default
 * /tmp/locomo-ideas-cache.json) is derived from it and stays outside the repo.
 *
 *   npm run bench:locomo:ideas                       # the baseline, recomputed
 *   IDEAS=kwdocjoint,rm3 npm run bench:locomo:ideas  # ideas by name (the keys of IDEAS below)
 *   MISSES=multi-hop,open-domain npm run bench:locomo:ideas  # every third question whose evidence misses the top 10
 *   END_TO_END=1 npm run bench:locomo:ideas          # the keyword context through recall itself
 *   COMPARE=open-domain npm run bench:locomo:ideas   # questions the keyword context wins or loses
 *
 * Stage 1 asks recall for every turn of the conversation (k above the turn
 * count) and keeps each turn's own score parts: cosine, normalised BM25, the
 * multipliers (named speaker, time question, time window), importance,
 * recency. Stage 2 recomputes the score from those parts exactly as
 * src/search/ranking.ts does, carries it along the session as
 * recall/turn-context.ts does (the baseline must reproduce `npm run
 * bench:locomo`), and applies each idea on top.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tokenize } from '../src/text/tokenize.js';
import { resolveRanking } from '../src/search/ranking.js';
import { buildExport, evaluate, loadConversations } from './locomo.js';
import { benchMemory, offlineEmbedder, printTable } from './support.js';

type Conversation = ReturnType<typeof loadConversations>[number];

interface TurnRow {
  id: string;
  session: number;
  index: number;
  speaker: string;
  terms: string[];
}
interface QuestionRow {
  conv: string;
  category: string;
  question: string;
  evidence: string[];
  /** Per turn (the conversation's turn order): cosine, normalised keyword, own multiplier, importance, recency. */
  cos: number[];
  kw: number[];
  mult: number[];
  imp: number[];
  rec: number[];
  /** The query's words as recall matched them (named speakers out). */
  terms: string[];
}
interface Cache {
  turns: Record<string, TurnRow[]>;
  vectors: Record<string, number[][]>;
  questions: QuestionRow[];
}

const CACHE = process.env.IDEAS_CACHE ?? '/tmp/locomo-ideas-cache.json';

async function buildCache(conversations: Conversation[]): Promise<Cache> {
  const turnExport = await buildExport(conversations, false, 'turns');
  const { memory } = await benchMemory({ timeZone: 'UTC' });
  await memory.import(turnExport);
  const embedder = await offlineEmbedder();
  const cache: Cache = { turns: {}, vectors: {}, questions: [] };
  for (const c of conversations) {
    const text = (t: (typeof c.turns)[number]) => `${t.text}${t.image_caption ? ` [image: ${t.image_caption}]` : ''}`;
    const turns = c.turns.map((t) => {
      const [s, i] = t.dia_id.slice(1).split(':');
      return { id: t.dia_id, session: Number(s), index: Number(i), speaker: t.speaker, terms: tokenize(text(t)) };
    });
    cache.turns[c.sample_id] = turns;
    cache.vectors[c.sample_id] = (await embedder.embed(c.turns.map(text))).map((v) => Array.from(v, (x) => Math.round(x * 1e6) / 1e6));
    const position = new Map(turns.map((t, i) => [t.id, i]));
    const speakers = new Set(turns.flatMap((t) => tokenize(t.speaker)));
    for (const q of c.qa) {
      if (q.evidence_ids.length === 0) continue;
      const hits = await memory.recall(q.question, { userId: c.sample_id, k: turns.length + 10, touch: false });
      const row: QuestionRow = { conv: c.sample_id, category: q.category_name, question: q.question, evidence: q.evidence_ids, cos: [], kw: [], mult: [], imp: [], rec: [], terms: tokenize(q.question).filter((t) => !speakers.has(t)) };
      for (const k of ['cos', 'kw', 'mult', 'imp', 'rec'] as const) row[k] = turns.map(() => NaN);
      for (const h of hits) {
        const i = position.get((h.memory.metadata as { diaId: string }).diaId)!;
        const p = h.parts;
        row.cos[i] = p.similarity;
        row.kw[i] = p.keyword;
        row.mult[i] = p.source * (p.timeMatch ?? 1) * (p.speakerMatch ?? 1) * (p.timeWindow?.multiplier ?? 1);
        row.imp[i] = p.importance;
        row.rec[i] = p.recency;
      }
      cache.questions.push(row);
    }
  }
  await memory.close();
  return cache;
}

const conversations = loadConversations();
let cache: Cache;
if (existsSync(CACHE)) cache = JSON.parse(readFileSync(CACHE, 'utf8')) as Cache;
else {
  cache = await buildCache(conversations);
  writeFileSync(CACHE, JSON.stringify(cache));
}
const missing = cache.questions.filter((q) => q.cos.some((x) => Number.isNaN(x))).length;
console.log(`${cache.questions.length} questions; ${missing} with turns recall did not return (a time slice); load ${loadavg()[0]!.toFixed(2)}`);

// ---------------------------------------------------------------- stage 2: the score, recomputed

const R = resolveRanking();
const KS = [1, 5, 10, 20] as const;
const CATEGORIES = ['single-hop', 'temporal', 'adversarial', 'multi-hop', 'open-domain'];

/** The window multiplier folded into `mult` (1 + timeWindowBoost, or 1): it travels with a carried score, the others do not. */
function windowOf(mult: number): number {
  const w = 1 + R.timeWindowBoost;
  const rest = mult / w;
  return [1, 1 + R.speakerBoost, 1 + R.timeQuestionBoost, (1 + R.speakerBoost) * (1 + R.timeQuestionBoost)].some((b) => Math.abs(rest - b) < 1e-6) ? w : 1;
}

interface Parts { cos: number[]; kw: number[]; mult: number[]; imp: number[]; rec: number[] }

/** Each turn's own score, as ranking.ts `combine` (pinned 0), with the dense weight and floor given. */
function ownScores(p: Parts, denseWeight = R.denseWeight, floor = R.boostFloor): number[] {
  return p.cos.map((c, i) => p.mult[i]! * (denseWeight * Math.max(0, c) + (1 - denseWeight) * p.kw[i]! + floor + R.weights.importance * p.imp[i]! + R.weights.recency * p.rec[i]!));
}

/** recall/turn-context.ts: a turn scores at least weight × the previous turn's score (own boosts out, its own in), two steps. */
function carry(turns: TurnRow[], own: number[], mult: number[], weight = R.previousTurnWeight): number[] {
  const score = [...own];
  const boost = mult.map((m) => m / windowOf(m));
  let frontier = turns.map((_, i) => i);
  for (let step = 0; step < 2 && weight > 0; step++) {
    const carried = new Map<number, number>();
    for (const i of frontier) {
      const next = i + 1;
      if (next >= turns.length || turns[next]!.session !== turns[i]!.session) continue;
      const s = (weight * score[i]!) / boost[i]!;
      if (s > (carried.get(next) ?? -Infinity)) carried.set(next, s);
    }
    const raised: number[] = [];
    for (const [j, s] of carried) {
      const b = s * boost[j]!;
      if (b > score[j]!) { score[j] = b; raised.push(j); }
    }
    frontier = raised;
  }
  return score;
}

/** Turn indices best first (ties by id, as recall). */
function order(turns: TurnRow[], score: number[]): number[] {
  const key = (i: number) => turns[i]!.id;
  return turns.map((_, i) => i).sort((a, b) => score[b]! - score[a]! || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Per question, recall at each of KS of a ranker (question → turn indices best first). */
function perQuestion(rank: (q: QuestionRow, turns: TurnRow[]) => number[]): number[][] {
  return cache.questions.map((q) => {
    const turns = cache.turns[q.conv]!;
    const ranked = rank(q, turns).slice(0, 20).map((i) => turns[i]!.id);
    const evidence = new Set(q.evidence);
    return KS.map((k) => ranked.slice(0, k).filter((id) => evidence.has(id)).length / evidence.size);
  });
}

/** Mean recall@KS over the questions `pick` keeps. */
function mean(recalls: number[][], pick: (q: QuestionRow) => boolean): number[] {
  const sums = KS.map(() => 0);
  let n = 0;
  cache.questions.forEach((q, i) => {
    if (!pick(q)) return;
    n++;
    recalls[i]!.forEach((r, j) => (sums[j]! += r));
  });
  return sums.map((s) => s / n);
}

const CONVERSATIONS = [...new Set(cache.questions.map((q) => q.conv))];
const rows: (string | number)[][] = [];

/**
 * An idea at each of its values (the first is "off"): the value chosen on
 * four conversations by R@10 (then R@5; ties keep the earlier value) is
 * scored on the fifth; prints the held-out R@1/5/10/20 overall and R@10 and
 * R@5 by category, and the choices.
 */
function idea<V>(name: string, values: V[], ranker: (v: V) => (q: QuestionRow, turns: TurnRow[]) => number[]): number[][] {
  const started = performance.now();
  const byValue = values.map((v) => perQuestion(ranker(v)));
  const heldOut: number[][] = cache.questions.map(() => []);
  const chosen: string[] = [];
  for (const held of CONVERSATIONS) {
    let best = 0;
    let bestScore = [-1, -1];
    byValue.forEach((recalls, vi) => {
      const m = mean(recalls, (q) => q.conv !== held);
      if (m[2]! > bestScore[0]! + 1e-12 || (Math.abs(m[2]! - bestScore[0]!) <= 1e-12 && m[1]! > bestScore[1]! + 1e-12)) { best = vi; bestScore = [m[2]!, m[1]!]; }
    });
    chosen.push(JSON.stringify(values[best]));
    cache.questions.forEach((q, i) => { if (q.conv === held) heldOut[i] = byValue[best]![i]!; });
  }
  const all = mean(heldOut, () => true);
  const cats = CATEGORIES.map((c) => mean(heldOut, (q) => q.category === c));
  rows.push([name, ...all, ...cats.map((c) => `${c[1]!.toFixed(3)}/${c[2]!.toFixed(3)}`), [...new Set(chosen)].join(' ')]);
  console.log(`${name}: R@10 ${all[2]!.toFixed(3)} R@5 ${all[1]!.toFixed(3)} chosen ${chosen.join(' ')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return heldOut;
}

function report(): void {
  printTable(`LoCoMo dev, turn memory, held out by leave-one-conversation-out (load ${loadavg()[0]!.toFixed(2)})`, ['idea', 'R@1', 'R@5', 'R@10', 'R@20', ...CATEGORIES.map((c) => `${c} R@5/R@10`), 'chosen'], rows);
}

const baseline = (q: QuestionRow, turns: TurnRow[]) => order(turns, carry(turns, ownScores(q), q.mult));

// ---------------------------------------------------------------- own BM25+ (search/bm25-scoring.ts), to vary

interface Bm25Index { tf: Map<string, number>[]; len: number[]; df: Map<string, number>; avg: number }
const bm25Indexes = new Map<string, Bm25Index>();
function bm25Index(conv: string, context: number | [number, number] = 0, repeat = 1, shortBelow = 0): Bm25Index {
  const [before, after] = typeof context === 'number' ? [context, context] : context;
  const key = `${conv}/${before}/${after}/${repeat}/${shortBelow}`;
  let index = bm25Indexes.get(key);
  if (index) return index;
  const turns = cache.turns[conv]!;
  const own = turns.map((t) => { const m = new Map<string, number>(); for (const w of t.terms) m.set(w, (m.get(w) ?? 0) + 1); return m; });
  // context > 0: a turn's document holds its session neighbours' terms (previous and next) at that fraction of a count.
  const tf = own.map((m, i) => {
    if (before === 0 && after === 0) return m;
    const out = new Map(m);
    // shortBelow > 0: the share shrinks with the turn's own length (a short reaction is read through its neighbours, a long turn stands alone).
    const scale = shortBelow > 0 ? Math.min(1, shortBelow / Math.max(1, turns[i]!.terms.length)) : 1;
    for (const [j, full] of [[i - 1, before], [i + 1, after]] as const) {
      const share = full * scale;
      if (share === 0 || j < 0 || j >= turns.length || turns[j]!.session !== turns[i]!.session) continue;
      for (const [w, n] of own[j]!) out.set(w, (out.get(w) ?? 0) + share * n);
    }
    return out;
  });
  // repeat > 1: counts in whole numbers, as a text of the neighbours and `repeat` copies of the turn would give.
  if (repeat !== 1) for (const m of tf) for (const [w, n] of m) m.set(w, Math.round(n * repeat));
  const len = tf.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const df = new Map<string, number>();
  for (const m of tf) for (const w of m.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  index = { tf, len, df, avg: len.reduce((a, b) => a + b, 0) / len.length };
  bm25Indexes.set(key, index);
  return index;
}

interface Bm25Params { k1: number; b: number; delta: number }
const BM25: Bm25Params = { k1: 1.2, b: 0.7, delta: 0.5 };

function idfOf(index: Bm25Index, term: string): number {
  const df = index.df.get(term) ?? 0;
  return Math.log(1 + (index.tf.length - df + 0.5) / (df + 0.5));
}

/** Raw BM25+ of every turn for weighted query terms. */
function bm25(index: Bm25Index, query: Map<string, number>, p: Bm25Params = BM25, idfs: Bm25Index = index): number[] {
  return index.tf.map((m, i) => {
    let s = 0;
    for (const [w, qw] of query) {
      const tf = m.get(w);
      if (!tf) continue;
      const norm = tf + p.k1 * (1 - p.b + (p.b * index.len[i]!) / index.avg);
      s += qw * idfOf(idfs, w) * ((tf * (p.k1 + 1)) / norm + p.delta);
    }
    return s;
  });
}

function normalised(raw: number[]): number[] {
  const best = Math.max(...raw);
  return best > 0 ? raw.map((x) => x / best) : raw.map(() => 0);
}

function uniform(terms: string[]): Map<string, number> {
  return new Map([...new Set(terms)].map((t) => [t, 1]));
}

/** The baseline with another keyword part. */
function withKeyword(q: QuestionRow, turns: TurnRow[], kw: number[], denseWeight = R.denseWeight, previous = R.previousTurnWeight): number[] {
  return order(turns, carry(turns, ownScores({ ...q, kw }, denseWeight), q.mult, previous));
}

// ---------------------------------------------------------------- the ideas

type Ranker = (q: QuestionRow, turns: TurnRow[]) => number[];
const ownKeyword = (q: QuestionRow, p: Bm25Params = BM25, context: number | [number, number] = 0, terms = q.terms) => normalised(bm25(bm25Index(q.conv, context), uniform(terms), p));

/** Session neighbours of turn i (previous and next). */
function neighbours(turns: TurnRow[], i: number): number[] {
  return [i - 1, i + 1].filter((j) => j >= 0 && j < turns.length && turns[j]!.session === turns[i]!.session);
}

/** Words a question is phrased with that say nothing of its topic: clitics, modals, hedges (English). */
const CLITICS = new Set(['s', 't', 'd', 'll', 're', 've', 'm']);
const HEDGES = new Set([...CLITICS, 'might', 'may', 'must', 'shall', 'likely', 'probably', 'ever', 'also', 'else', 'ani', 'mani', 'much', 'kind', 'type', 'sort', 'thing', 'someth', 'anyth', 'done', 'get', 'got', 'go', 'make', 'made', 'sai', 'think', 'consid', 'would', 'like']);

const IDEAS: Record<string, () => void> = {
  bm25: () => idea('BM25 k1/b', [[1.2, 0.7], [0.9, 0.7], [1.5, 0.7], [2, 0.7], [1.2, 0.4], [1.2, 0.9], [0.9, 0.4], [1.5, 0.9], [1.2, 0.5], [2, 0.9]], ([k1, b]) => (q, turns) => withKeyword(q, turns, ownKeyword(q, { k1: k1!, b: b!, delta: BM25.delta }))),
  delta: () => idea('BM25+ delta', [0.5, 0, 0.25, 1], (delta) => (q, turns) => withKeyword(q, turns, ownKeyword(q, { ...BM25, delta }))),
  stop: () => idea('query stop words (0 none, 1 clitics, 2 + hedges)', [0, 1, 2], (v) => (q, turns) => {
    const drop = v === 0 ? new Set<string>() : v === 1 ? CLITICS : HEDGES;
    const terms = q.terms.filter((t) => !drop.has(t));
    return withKeyword(q, turns, ownKeyword(q, BM25, 0, terms.length > 0 ? terms : q.terms));
  }),
  // Keyword context, score level: a turn's keyword part plus beta × its neighbours', renormalised.
  kwctx: () => idea('keyword context, score (prev+next)', [0, 0.1, 0.2, 0.3, 0.5], (beta) => (q, turns) => {
    const kw = q.kw.map((k, i) => k + beta * neighbours(turns, i).reduce((s, j) => s + q.kw[j]!, 0));
    return withKeyword(q, turns, normalised(kw));
  }),
  // Keyword context, document level: neighbours' terms in the turn's BM25 document at beta of a count.
  kwdoc: () => idea('keyword context, document (prev+next)', [0, 0.1, 0.2, 0.3, 0.5], (beta) => (q, turns) => withKeyword(q, turns, ownKeyword(q, BM25, beta))),
  kwdoc2: () => {
    const values: [number, number][] = [[0, 0]];
    for (const b of [0, 0.1, 0.2, 0.3, 0.5, 0.7]) for (const a of [0, 0.1, 0.2, 0.3, 0.5, 0.7]) if (a + b > 0) values.push([b, a]);
    idea('keyword context, document (prev, next)', values, (c) => (q, turns) => withKeyword(q, turns, ownKeyword(q, BM25, c)));
  },
  kwdocjoint: () => {
    const values: [number, number, number][] = [[0, 0.85, 0.4]];
    for (const c of [0.2, 0.3, 0.5]) for (const p of [0, 0.7, 0.8, 0.85, 0.9]) for (const d of [0.3, 0.4, 0.5]) values.push([c, p, d]);
    idea('keyword context, document (share, previousTurnWeight, denseWeight)', values, ([c, p, d]) => (q, turns) => withKeyword(q, turns, ownKeyword(q, BM25, c), d, p));
  },
  kwdocasym: () => {
    const values: [number, number, number][] = [[0, 0, 0.85]];
    for (const b of [0.3, 0.5, 0.7, 1]) for (const a of [0, 0.1, 0.3, 0.5]) for (const p of [0.85, 0.9, 0.95]) values.push([b, a, p]);
    idea('keyword context, document (prev, next, previousTurnWeight)', values, ([b, a, p]) => (q, turns) => withKeyword(q, turns, ownKeyword(q, BM25, [b, a]), R.denseWeight, p));
  },
  // Backward carry: a turn also scores at least w × the score of the turn after it (own boosts out), one step, after the forward carry.
  backward: () => idea('backward carry (next-turn weight)', [0, 0.5, 0.6, 0.7, 0.8, 0.9], (w) => (q, turns) => {
    const score = carry(turns, ownScores(q), q.mult);
    if (w === 0) return order(turns, score);
    const boost = q.mult.map((m) => m / windowOf(m));
    const out = [...score];
    for (let i = 0; i + 1 < turns.length; i++) {
      if (turns[i + 1]!.session !== turns[i]!.session) continue;
      out[i] = Math.max(out[i]!, (w * score[i + 1]!) / boost[i + 1]! * boost[i]!);
    }
    return order(turns, out);
  }),
  // Whole counts: the turn's text `r` times and each neighbour's once (share 1/r), as concatenated text would index.
  kwdocint: () => {
    const values: [number, number][] = [[0, 0.85]];
    for (const r of [1, 2, 3]) for (const p of [0.85, 0.9, 0.95]) values.push([r, p]);
    idea('keyword context, text (own x r + prev + next, previousTurnWeight)', values, ([r, p]) => (q, turns) => r === 0 ? baseline(q, turns) : withKeyword(q, turns, normalised(bm25(bm25Index(q.conv, 1 / r, r), uniform(q.terms))), R.denseWeight, p));
  },
  // As kwdocjoint, with each term's idf from the turns' own texts (what a query-time spread over the postings would have).
  kwdocowndf: () => {
    const values: [number, number][] = [[0, 0.85]];
    for (const c of [0.3, 0.5, 0.7]) for (const p of [0.85, 0.9]) values.push([c, p]);
    idea('keyword context, document, own-text idf (share, previousTurnWeight)', values, ([c, p]) => (q, turns) => c === 0 ? baseline(q, turns) : withKeyword(q, turns, normalised(bm25(bm25Index(q.conv, c), uniform(q.terms), BM25, bm25Index(q.conv))), R.denseWeight, p));
  },
  // The text context (r 2) with the query's clitics and hedges dropped, and the dense weight, chosen together.
  kwdocstop: () => {
    const values: [number, number, number][] = [[0, 0, 0.4]];
    for (const stop of [0, 1, 2]) for (const p of [0.85, 0.9]) for (const d of [0.4, 0.5]) values.push([stop, p, d]);
    idea('keyword context, text r 2, + stop words (stop, previousTurnWeight, denseWeight)', values, ([stop, p, d]) => (q, turns) => {
      if (p === 0) return baseline(q, turns);
      const drop = stop === 0 ? new Set<string>() : stop === 1 ? CLITICS : HEDGES;
      const kept = q.terms.filter((t) => !drop.has(t));
      return withKeyword(q, turns, normalised(bm25(bm25Index(q.conv, 0.5, 2), uniform(kept.length > 0 ? kept : q.terms))), d, p);
    });
  },
  // The document context with a share that shrinks past a turn's length L (share × min(1, L / own terms)).
  kwdocshort: () => {
    const values: [number, number, number][] = [[0, 0, 0.85]];
    for (const c of [0.5, 0.7, 1]) for (const L of [0, 5, 10, 20]) for (const p of [0.85, 0.9]) values.push([c, L, p]);
    idea('keyword context, document, share by length (share, L, previousTurnWeight)', values, ([c, L, p]) => (q, turns) => c === 0 ? baseline(q, turns) : withKeyword(q, turns, normalised(bm25(bm25Index(q.conv, c, 1, L), uniform(q.terms))), R.denseWeight, p));
  },
  // Dense context, score level: cosine plus gamma × neighbours' cosines, over 1 + 2 gamma.
  cosctx: () => idea('dense context, score (prev+next)', [0, 0.1, 0.2, 0.3], (gamma) => (q, turns) => {
    const cos = q.cos.map((c, i) => (Math.max(0, c) + gamma * neighbours(turns, i).reduce((s, j) => s + Math.max(0, q.cos[j]!), 0)) / (1 + 2 * gamma));
    return order(turns, carry(turns, ownScores({ ...q, cos }), q.mult));
  }),
  // Reciprocal-rank fusion in place of the weighted sum: relevance = RRF normalised to its best, the rest as now.
  rrf: () => idea('reciprocal-rank fusion (K; 0 = weighted sum)', [0, 5, 10, 20, 60], (K) => (q, turns) => {
    if (K === 0) return baseline(q, turns);
    const rankOf = (xs: number[]) => { const r = new Array<number>(xs.length); xs.map((x, i) => [x, i] as const).sort((a, b) => b[0] - a[0]).forEach(([x, i], n) => (r[i] = x > 0 ? n : Infinity)); return r; };
    const rc = rankOf(q.cos), rk = rankOf(q.kw);
    const fused = normalised(turns.map((_, i) => R.denseWeight / (K + rc[i]!) + (1 - R.denseWeight) / (K + rk[i]!)));
    return order(turns, carry(turns, ownScores({ ...q, cos: fused, kw: fused }), q.mult));
  }),
  // Keyword part over max(best, nu × the query's ideal score): a weak best match is not stretched to 1.
  kwnorm: () => idea('keyword normalised by max(best, nu x ideal)', [0, 0.25, 0.5, 0.75, 1], (nu) => (q, turns) => {
    const index = bm25Index(q.conv);
    const raw = bm25(index, uniform(q.terms));
    const ideal = [...new Set(q.terms)].reduce((s, t) => s + idfOf(index, t) * (1 + BM25.delta), 0);
    const best = Math.max(...raw, nu * ideal);
    return withKeyword(q, turns, best > 0 ? raw.map((x) => x / best) : raw);
  }),
  // RM3: the top m turns of the hybrid ranking give expansion terms (their term shares weighted by score), the t best
  // not in the query are added at alpha of the query's weight, and the keyword part is the expanded BM25.
  rm3: () => {
    const values: [number, number, number][] = [[0, 0, 0]];
    for (const m of [3, 5, 10]) for (const t of [5, 10, 20]) for (const a of [0.1, 0.2, 0.3, 0.5]) values.push([m, t, a]);
    idea('RM3 keyword feedback (docs, terms, alpha)', values, ([m, t, alpha]) => (q, turns) => {
      if (alpha === 0) return baseline(q, turns);
      const first = baseline(q, turns);
      const index = bm25Index(q.conv);
      const own = ownScores(q);
      const weights = new Map<string, number>();
      for (const i of first.slice(0, m)) {
        const len = index.len[i]!;
        for (const [w, n] of index.tf[i]!) weights.set(w, (weights.get(w) ?? 0) + (own[i]! * n) / len);
      }
      const query = new Set(q.terms);
      const expansion = [...weights].filter(([w]) => !query.has(w)).sort((a, b) => b[1] - a[1]).slice(0, t);
      const total = expansion.reduce((s, [, x]) => s + x, 0);
      const weighted = new Map<string, number>([...query].map((w) => [w, (1 - alpha) / query.size]));
      for (const [w, x] of expansion) weighted.set(w, (weighted.get(w) ?? 0) + (alpha * x) / total);
      return withKeyword(q, turns, normalised(bm25(index, weighted)));
    });
  },
  // MMR over the top 40: lambda × score / best − (1 − lambda) × the largest cosine to a turn already placed.
  mmr: () => {
    const vectors = new Map(Object.entries(cache.vectors).map(([c, vs]) => [c, vs.map((v) => { const n = Math.hypot(...v) || 1; return v.map((x) => x / n); })]));
    const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    idea('MMR over the top 40 (lambda)', [1, 0.95, 0.9, 0.8, 0.7], (lambda) => (q, turns) => {
      const score = carry(turns, ownScores(q), q.mult);
      const ranked = order(turns, score);
      if (lambda === 1) return ranked;
      const vs = vectors.get(q.conv)!;
      const pool = ranked.slice(0, 40);
      const best = score[ranked[0]!]!;
      const placed: number[] = [];
      while (pool.length > 0) {
        let pick = 0, pickValue = -Infinity;
        pool.forEach((i, n) => {
          const redundancy = placed.length === 0 ? 0 : Math.max(...placed.map((j) => cosine(vs[i]!, vs[j]!)));
          const value = (lambda * score[i]!) / best - (1 - lambda) * redundancy;
          if (value > pickValue) { pick = n; pickValue = value; }
        });
        placed.push(pool.splice(pick, 1)[0]!);
      }
      return [...placed, ...ranked.slice(40)];
    });
  },
};

/**
 * The keyword context through recall itself: each turn stored with the text
 * its previous turn, itself twice and its next turn make (the counts of
 * `kwdocint` r = 2) and the vector of its own text, ranked by recall at the
 * default and at previousTurnWeight 0.9. An approximation of a real option:
 * the neighbours' relative times ("yesterday") become the turn's too.
 */
async function endToEnd(): Promise<void> {
  const embedder = await offlineEmbedder();
  const { memory } = await benchMemory();
  for (const c of conversations) {
    const own = c.turns.map((t) => `${t.text}${t.image_caption ? ` [image: ${t.image_caption}]` : ''}`);
    const vectors = await embedder.embed(own);
    const session = (i: number) => c.turns[i]?.dia_id.split(':')[0];
    await memory.turns.addMany(
      c.turns.map((turn, i) => ({
        id: `${c.sample_id}/${turn.dia_id}`,
        userId: c.sample_id,
        sessionId: `${c.sample_id}/${session(i)}`,
        speaker: turn.speaker,
        text: [session(i - 1) === session(i) ? own[i - 1] : '', own[i], own[i], session(i + 1) === session(i) ? own[i + 1] : ''].filter(Boolean).join(' \n '),
        embedding: vectors[i]!,
        createdAt: Date.parse(`${turn.session_iso_date_time}Z`),
        metadata: { diaId: turn.dia_id },
      })),
    );
  }
  const exportText = await (await memory.export()).text();
  await memory.close();
  const table: (string | number)[][] = [];
  for (const ranking of [{}, { previousTurnWeight: 0.9 }]) {
    const r = await evaluate(ranking, exportText, conversations);
    for (const cat of [...CATEGORIES, 'overall']) {
      const b = cat === 'overall' ? r.overall : r.byCategory.get(cat)!;
      table.push([JSON.stringify(ranking), cat, ...b.sums.map((x) => x / b.n)]);
    }
  }
  printTable(`Keyword context through recall: text = previous + own x 2 + next, own vector (load ${loadavg()[0]!.toFixed(2)})`, ['ranking', 'category', ...KS.map((k) => `R@${k}`)], table);
}

if (process.env.END_TO_END) await endToEnd();
else if (process.env.COMPARE) {
  // Questions whose R@10 the text context (r 2, previousTurnWeight 0.9) changes, with the evidence's places before and after.
  const after: Ranker = (q, turns) => withKeyword(q, turns, normalised(bm25(bm25Index(q.conv, 0.5, 2), uniform(q.terms))), R.denseWeight, 0.9);
  const sums = [0, 0];
  let n = 0;
  for (const q of cache.questions) {
    if (!process.env.COMPARE.split(',').includes(q.category)) continue;
    const turns = cache.turns[q.conv]!;
    const places = [baseline, after].map((rank) => { const r = rank(q, turns).map((i) => turns[i]!.id); return q.evidence.map((e) => r.indexOf(e) + 1); });
    const r10 = places.map((p) => p.filter((x) => x >= 1 && x <= 10).length);
    sums[0]! += r10[0]! / q.evidence.length; sums[1]! += r10[1]! / q.evidence.length; n++;
    if (r10[0] !== r10[1]) console.log(`${r10[0]! > r10[1]! ? 'LOST' : 'won '} ${q.category} ${q.conv} ${q.question} | ${q.evidence.join(' ')} | ${places[0]!.join(',')} -> ${places[1]!.join(',')}`);
  }
  console.log(`R@10 ${(sums[0]! / n).toFixed(3)} -> ${(sums[1]! / n).toFixed(3)} over ${n} questions`);
}
else if (process.env.MISSES) {
  const texts = new Map(conversations.flatMap((c) => c.turns.map((t) => [`${c.sample_id}/${t.dia_id}`, `${t.speaker}: ${t.text}${t.image_caption ? ` [image: ${t.image_caption}]` : ''}`])));
  let shown = 0;
  for (const q of cache.questions) {
    if (!process.env.MISSES.split(',').includes(q.category)) continue;
    const turns = cache.turns[q.conv]!;
    const ranked = baseline(q, turns);
    const place = new Map(ranked.map((i, r) => [turns[i]!.id, r + 1]));
    if (q.evidence.every((e) => (place.get(e) ?? 999) <= 10)) continue;
    if (shown++ % 3 !== 0) continue;
    console.log(`\n[${q.category}] ${q.question}  terms=${q.terms.join(',')}`);
    for (const e of q.evidence) {
      const i = turns.findIndex((t) => t.id === e);
      console.log(`  ev ${e} rank ${place.get(e)} cos ${q.cos[i]?.toFixed(2)} kw ${q.kw[i]?.toFixed(2)} shared=${turns[i]?.terms.filter((t) => q.terms.includes(t)).join(',')} | ${texts.get(`${q.conv}/${e}`)?.slice(0, 160)}`);
    }
    for (const i of ranked.slice(0, 3)) console.log(`  top ${turns[i]!.id} | ${texts.get(`${q.conv}/${turns[i]!.id}`)?.slice(0, 120)}`);
    if (shown > 60) break;
  }
} else {
  idea('baseline (recomputed)', [0], () => baseline);
  const ownKw = (q: QuestionRow) => normalised(bm25(bm25Index(q.conv), uniform(q.terms)));
  let close = 0;
  for (const q of cache.questions) if (ownKw(q).every((x, i) => Math.abs(x - q.kw[i]!) < 1e-4)) close++;
  console.log(`own BM25 equals recall's keyword part on ${close} of ${cache.questions.length} questions`);
  idea('baseline, own BM25', [0], () => (q, turns) => withKeyword(q, turns, ownKw(q)));
  for (const fn of (process.env.IDEAS ?? '').split(',').filter(Boolean)) IDEAS[fn]!();
  report();
}

