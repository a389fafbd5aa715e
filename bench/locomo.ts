/**
 * Retrieval quality on LoCoMo (dev split, ../shared/eval/locomo-dev): every
 * dialogue turn is stored as a memory, every question with evidence is a
 * query, and recall@k = |evidence ∩ top-k| / |evidence|, averaged per
 * category and overall. Three modes: dense only, keyword (BM25) only, hybrid.
 * No LLM is involved. Research data (CC BY-NC 4.0): read at run time, never shipped.
 *
 *   npm run bench:locomo
 */
import { readFileSync } from 'node:fs';
import type { Memory, RankingOptions } from '../src/index.js';
import { loadavg } from 'node:os';
import { benchMemory, LOCOMO_PATH, percentile, printTable } from './support.js';
import { resolveRanking } from '../src/search/ranking.js';

interface Turn { dia_id: string; speaker: string; text: string; image_caption?: string; session_iso_date_time: string }
interface Question { qid: string; question: string; category: number; category_name: string; evidence_ids: string[] }
interface Conversation { sample_id: string; turns: Turn[]; qa: Question[] }

const KS = [1, 5, 10, 20] as const;

export const MODES: Record<string, RankingOptions> = {
  dense: { denseWeight: 1, weights: { importance: 0, recency: 0, pinned: 0 } },
  keyword: { denseWeight: 0, weights: { importance: 0, recency: 0, pinned: 0 } },
  hybrid: {},
};

/**
 * Rerank with recency: turns are stored at their session's time (the clock
 * follows the conversation) and queried a day after the last session, so
 * recency favours later sessions. Compared with `hybrid` on the temporal category.
 */
const RECENCY_MODES: Record<string, RankingOptions> = {
  'hybrid+recency(0.1, 30d)': { weights: { recency: 0.1 }, halfLifeDays: 30 },
  'hybrid+recency(0.3, 30d)': { weights: { recency: 0.3 }, halfLifeDays: 30 },
};

export function loadConversations(): Conversation[] {
  return readFileSync(LOCOMO_PATH, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Conversation);
}

export function turnText(turn: Turn): string {
  return `${turn.speaker}: ${turn.text}${turn.image_caption ? ` [image: ${turn.image_caption}]` : ''}`;
}

/** Stores one conversation's turns as facts (one user per conversation). `clock` follows the session times when given. */
async function ingest(memory: Memory, conversation: Conversation, clock?: { now: number }): Promise<void> {
  for (const turn of conversation.turns) {
    if (clock) clock.now = Date.parse(`${turn.session_iso_date_time}Z`);
    await memory.facts.add({
      id: `${conversation.sample_id}/${turn.dia_id}`,
      userId: conversation.sample_id,
      text: turnText(turn),
      createdAt: Date.parse(`${turn.session_iso_date_time}Z`),
      metadata: { diaId: turn.dia_id },
    });
  }
}

/**
 * Stores one conversation as engram's turn memory (what `observe()` keeps
 * without an LLM): the speaker is a field, not a `Name:` prefix in the text.
 */
async function ingestTurns(memory: Memory, conversation: Conversation): Promise<void> {
  await memory.turns.addMany(
    conversation.turns.map((turn) => ({
      id: `${conversation.sample_id}/${turn.dia_id}`,
      userId: conversation.sample_id,
      sessionId: `${conversation.sample_id}/${turn.dia_id.split(':')[0]}`,
      speaker: turn.speaker,
      text: `${turn.text}${turn.image_caption ? ` [image: ${turn.image_caption}]` : ''}`,
      createdAt: Date.parse(`${turn.session_iso_date_time}Z`),
      metadata: { diaId: turn.dia_id },
    })),
  );
}

export interface ModeResult {
  byCategory: Map<string, { n: number; sums: number[] }>;
  overall: { n: number; sums: number[] };
  /** Per conversation (sample_id), for cross-validation. */
  byConversation: Map<string, { n: number; sums: number[] }>;
  /** Each recall's wall time, ms. */
  latencies: number[];
}

export async function evaluate(ranking: RankingOptions, exportText: string, conversations: Conversation[], now?: number): Promise<ModeResult> {
  // The turns' times are their sessions' wall clocks read as UTC: the queries' dates are read in the same zone.
  const { memory } = await benchMemory({ ranking, timeZone: 'UTC', ...(now !== undefined ? { clock: () => now } : {}) });
  await memory.import(exportText);
  const result: ModeResult = { byCategory: new Map(), overall: { n: 0, sums: KS.map(() => 0) }, byConversation: new Map(), latencies: [] };
  for (const conversation of conversations) {
    for (const q of conversation.qa) {
      if (q.evidence_ids.length === 0) continue;
      const started = performance.now();
      const hits = await memory.recall(q.question, { userId: conversation.sample_id, k: 20, touch: false });
      result.latencies.push(performance.now() - started);
      const ranked = hits.map((h) => (h.memory.metadata as { diaId: string }).diaId);
      const evidence = new Set(q.evidence_ids);
      const bucket = result.byCategory.get(q.category_name) ?? { n: 0, sums: KS.map(() => 0) };
      result.byCategory.set(q.category_name, bucket);
      const own = result.byConversation.get(conversation.sample_id) ?? { n: 0, sums: KS.map(() => 0) };
      result.byConversation.set(conversation.sample_id, own);
      KS.forEach((k, i) => {
        const found = ranked.slice(0, k).filter((id) => evidence.has(id)).length;
        const r = found / evidence.size;
        bucket.sums[i]! += r;
        own.sums[i]! += r;
        result.overall.sums[i]! += r;
      });
      bucket.n++;
      own.n++;
      result.overall.n++;
    }
  }
  await memory.close();
  return result;
}

export async function buildExport(conversations: Conversation[], followSessionTime = false, as: 'facts' | 'turns' = 'facts'): Promise<string> {
  const clock = { now: Date.now() };
  const { memory } = await benchMemory(followSessionTime ? { clock: () => clock.now } : {});
  for (const c of conversations) {
    if (as === 'turns') await ingestTurns(memory, c);
    else await ingest(memory, c, followSessionTime ? clock : undefined);
  }
  const text = await (await memory.export()).text();
  await memory.close();
  return text;
}

/**
 * Evaluates the turn store at each value of one ranking weight and prints
 * leave-one-conversation-out: for each conversation, the value best on the
 * other four (hybrid R@10) and what it scores on the one held out.
 */
async function crossValidate(name: string, values: number[], ranking: (value: number) => RankingOptions, exportText: string, conversations: Conversation[]): Promise<Map<number, ModeResult>> {
  const byValue = new Map<number, ModeResult>();
  for (const v of values) byValue.set(v, await evaluate(ranking(v), exportText, conversations));
  const r10 = (r: ModeResult, ids: string[]) => {
    const picked = ids.map((id) => r.byConversation.get(id)!);
    return picked.reduce((s, b) => s + b.sums[2]!, 0) / picked.reduce((s, b) => s + b.n, 0);
  };
  const off = byValue.get(0)!;
  const ids = conversations.map((c) => c.sample_id);
  const rows: (string | number)[][] = [];
  let heldOutSum = 0;
  let heldOutN = 0;
  for (const held of ids) {
    const train = ids.filter((id) => id !== held);
    const best = values.reduce((a, b) => (r10(byValue.get(b)!, train) > r10(byValue.get(a)!, train) ? b : a));
    const test = r10(byValue.get(best)!, [held]);
    const n = byValue.get(best)!.byConversation.get(held)!.n;
    heldOutSum += test * n;
    heldOutN += n;
    rows.push([held, best, r10(byValue.get(best)!, train), test, r10(off, [held])]);
  }
  rows.push(['all (held out)', '', '', heldOutSum / heldOutN, r10(off, ids)]);
  printTable(`${name} by leave-one-conversation-out (hybrid R@10, turn memory)`, ['held out', `chosen ${name}`, 'R@10 on the other four', 'R@10 held out', `R@10 held out, ${name} 0`], rows);
  return byValue;
}

/** Hybrid R@10 per category with a weight at 0 and at its default (from `crossValidate`'s runs). */
function printByCategory(name: string, byValue: Map<number, ModeResult>, fallback: number): void {
  const rows = [...byValue.get(0)!.byCategory.keys()].sort().map((cat) => [cat, ...[0, fallback].map((v) => { const c = byValue.get(v)!.byCategory.get(cat)!; return c.sums[2]! / c.n; })]);
  printTable(`${name} by category (hybrid R@10, turn memory)`, ['category', `${name} 0`, `${name} ${fallback} (default)`], rows);
}

/**
 * Per-session diversity: recall's own `maxPerSession` (a session keeps at
 * most that many of the 10 places), and, measured as a rerank of each
 * question's top 60 and not shipped, a decay: the j-th turn of a session
 * (j from 0) has its score multiplied by decay^j.
 */
async function diversity(exportText: string, conversations: Conversation[]): Promise<(string | number)[][]> {
  type Hit = { id: string; score: number; session: string };
  const reranks: [string, (hits: Hit[]) => Hit[]][] = [['none', (hits) => hits]];
  for (const decay of [0.95, 0.9, 0.8]) {
    reranks.push([`decay ${decay}`, (hits) => {
      const seen = new Map<string, number>();
      return hits
        .map((h) => {
          const j = seen.get(h.session) ?? 0;
          seen.set(h.session, j + 1);
          return { ...h, score: h.score * decay ** j };
        })
        .sort((a, b) => b.score - a.score);
    }]);
  }
  const caps = [2, 3, 5];
  const { memory } = await benchMemory();
  await memory.import(exportText);
  const sums = new Map<string, Map<string, { n: number; s: number }>>();
  for (const conversation of conversations) {
    for (const q of conversation.qa) {
      if (q.evidence_ids.length === 0) continue;
      const hits = (await memory.recall(q.question, { userId: conversation.sample_id, k: 60, touch: false })).map((h) => ({
        id: (h.memory.metadata as { diaId: string }).diaId,
        score: h.score,
        session: String((h.memory as { sessionId?: string | null }).sessionId),
      }));
      const evidence = new Set(q.evidence_ids);
      const ranked: [string, string[]][] = reranks.map(([name, rerank]) => [name, rerank(hits).slice(0, 10).map((h) => h.id)]);
      for (const cap of caps) {
        const capped = await memory.recall(q.question, { userId: conversation.sample_id, k: 10, touch: false, maxPerSession: cap });
        ranked.push([`maxPerSession ${cap}`, capped.map((h) => (h.memory.metadata as { diaId: string }).diaId)]);
      }
      for (const [name, top] of ranked) {
        const r = top.filter((id) => evidence.has(id)).length / evidence.size;
        const byCategory = sums.get(name) ?? new Map<string, { n: number; s: number }>();
        sums.set(name, byCategory);
        for (const key of ['overall', q.category_name]) {
          const b = byCategory.get(key) ?? { n: 0, s: 0 };
          b.n++;
          b.s += r;
          byCategory.set(key, b);
        }
      }
    }
  }
  await memory.close();
  return [...sums.keys()].map((name) => [name, ...['overall', 'multi-hop', 'open-domain', 'single-hop', 'temporal', 'adversarial'].map((key) => {
    const b = sums.get(name)!.get(key)!;
    return b.s / b.n;
  })]);
}

async function main(): Promise<void> {
  const conversations = loadConversations();
  const started = performance.now();
  const exportText = await buildExport(conversations);
  console.log(`ingested ${conversations.reduce((n, c) => n + c.turns.length, 0)} turns in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const rows: (string | number)[][] = [];
  for (const [mode, ranking] of Object.entries(MODES)) {
    const r = await evaluate(ranking, exportText, conversations);
    const categories = [...r.byCategory.keys()].sort();
    for (const cat of [...categories, 'overall']) {
      const b = cat === 'overall' ? r.overall : r.byCategory.get(cat)!;
      rows.push([mode, cat, b.n, ...b.sums.map((s) => s / b.n)]);
    }
  }
  printTable('LoCoMo dev retrieval recall@k (potion-base-4M-int8, offline)', ['mode', 'category', 'questions', ...KS.map((k) => `R@${k}`)], rows);

  // The same turns as engram's turn memory (turns.addMany: speaker as a field, what observe() keeps without an LLM).
  const turnExport = await buildExport(conversations, false, 'turns');
  const turnRows: (string | number)[][] = [];
  for (const [mode, ranking] of Object.entries(MODES)) {
    const r = await evaluate(ranking, turnExport, conversations);
    for (const cat of [...[...r.byCategory.keys()].sort(), 'overall']) {
      const b = cat === 'overall' ? r.overall : r.byCategory.get(cat)!;
      turnRows.push([mode, cat, b.n, ...b.sums.map((s) => s / b.n)]);
    }
  }
  printTable('LoCoMo dev recall@k, turn memory (turns.addMany: speaker a field, indexed by the words alone)', ['mode', 'category', 'questions', ...KS.map((k) => `R@${k}`)], turnRows);

  // The weights of the turn context (ranking.previousTurnWeight) and of time questions (ranking.timeQuestionBoost),
  // each chosen by leave-one-conversation-out: tune on four conversations, report on the fifth.
  const byWeight = await crossValidate('previousTurnWeight', [0, 0.7, 0.8, 0.85, 0.9, 0.95], (w) => ({ previousTurnWeight: w }), turnExport, conversations);
  const latency = (w: number) => {
    const sorted = [...byWeight.get(w)!.latencies].sort((a, b) => a - b);
    return `${percentile(sorted, 50).toFixed(2)} / ${percentile(sorted, 95).toFixed(2)} ms`;
  };
  console.log(`\nrecall (k 20) p50 / p95 on the turn store: ${latency(0.85)} with previousTurnWeight 0.85, ${latency(0)} with 0 (load ${loadavg()[0]!.toFixed(2)})`);
  const byBoost = await crossValidate('timeQuestionBoost', [0, 0.1, 0.2, 0.3, 0.4, 0.5], (b) => ({ timeQuestionBoost: b }), turnExport, conversations);
  printByCategory('timeQuestionBoost', byBoost, resolveRanking().timeQuestionBoost);
  // Speakers as a field: a named speaker leaves the query's words and boosts their turns (0: the name stays a word, no boost).
  const bySpeaker = await crossValidate('speakerBoost', [0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5], (b) => ({ speakerBoost: b }), turnExport, conversations);
  printByCategory('speakerBoost', bySpeaker, resolveRanking().speakerBoost);
  // Time windows of the query (recall/query-times.ts): the memories in a date, month or session it names, boosted.
  const byWindow = await crossValidate('timeWindowBoost', [0, 0.5, 1, 2, 3, 5], (b) => ({ timeWindowBoost: b }), turnExport, conversations);
  printByCategory('timeWindowBoost', byWindow, resolveRanking().timeWindowBoost);

  // The floor the multipliers act on beside relevance (ranking.boostFloor): 0 makes every boost a pure ratio.
  const byFloor = await crossValidate('boostFloor', [0, 0.05, 0.1, 0.15, 0.2, 0.3], (f) => ({ boostFloor: f }), turnExport, conversations);
  printByCategory('boostFloor', byFloor, resolveRanking().boostFloor);

  // Diversity: does capping or decaying each session's share of the top 10 help (multi-hop lists spread over sessions)?
  const diversityRows = await diversity(turnExport, conversations);
  printTable('Session diversity (hybrid R@10, turn memory): recall({ maxPerSession }), and decay as a rerank of the top 60 (not shipped)', ['rerank', 'overall', 'multi-hop', 'open-domain', 'single-hop', 'temporal', 'adversarial'], diversityRows);

  // Does rerank with recency change recall@10 on the temporal category?
  const timed = await buildExport(conversations, true);
  const lastSession = Math.max(...conversations.flatMap((c) => c.turns.map((t) => Date.parse(`${t.session_iso_date_time}Z`))));
  const recencyRows: (string | number)[][] = [];
  for (const [mode, ranking] of Object.entries({ hybrid: MODES.hybrid!, ...RECENCY_MODES })) {
    const r = await evaluate(ranking, timed, conversations, lastSession + 86_400_000);
    const temporal = r.byCategory.get('temporal')!;
    recencyRows.push([mode, temporal.sums[2]! / temporal.n, r.overall.sums[2]! / r.overall.n]);
  }
  printTable('Rerank with recency (turns stored at session time, queried a day after the last session)', ['mode', 'temporal R@10', 'overall R@10'], recencyRows);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
