/**
 * Questions about *when* (issue 47): every turn of the LoCoMo dev
 * conversations (../shared/eval/locomo-dev; research data, read at run time,
 * never shipped) is stored with `turns.addMany` at its session's time (a
 * wall-clock time in ZONE, turns 30 s apart), one user per conversation, and
 * questions of each kind are generated from templates with the answer taken
 * from the timestamps: the turns of that day, month, span, part of a day or
 * session. Each is asked with `recall()` at a `now` the question makes
 * sense at (the memory's injected clock).
 *
 * Two phrasings of every kind: `templates` and `other words` (phrasings the
 * templates do not use, to see the language is read, not the templates).
 * Content + date questions are LoCoMo's own questions whose evidence lies in
 * one day, with that day (or month) added.
 *
 * Recall@k = |relevant ∩ top k| / min(k, |relevant|) (a day of 30 turns is
 * found in full by a top 10 of that day). Beside engram: the date-filter
 * baseline (chrono-node's reading of the question, turns inside that window
 * first, then BM25) and chance.
 *
 *   npm run bench:time            TIME_BENCH_PER_KIND=12 (questions per kind, phrasing and conversation)
 *   TIME_BENCH_RANKING='{"timeWindowBoost":3}' npm run bench:time     other ranking options
 *   TIME_BENCH_MISSES=1 npm run bench:time                           also list the questions below R@10 0.9
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { casual } from 'chrono-node/en';
import type { Memory, RankingOptions } from '../src/index.js';
import { DAY_MS, HOUR_MS, localMs, partsOf, periodOf, startOfDay, weekdayOf } from '../src/time/civil.js';
import { instantOf, localOf, offsetAt } from '../src/time/zone.js';
import { benchMemory, LOCOMO_PATH, printTable } from './support.js';
import { rng } from './synthetic.js';

const ZONE = 'America/New_York';
const KS = [1, 5, 10, 20] as const;
const PER_KIND = Number(process.env.TIME_BENCH_PER_KIND ?? 12);

interface LocomoTurn { dia_id: string; speaker: string; text: string; image_caption?: string; session_iso_date_time: string; turn_index: number }
interface LocomoQuestion { question: string; category_name: string; evidence_ids: string[] }
interface Conversation { sample_id: string; turns: LocomoTurn[]; qa: LocomoQuestion[] }

interface StoredTurn { id: string; session: number; at: number; local: number }
interface Question { kind: string; phrasing: 'templates' | 'other words'; question: string; now: number; relevant: Set<string> }

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const ordinalSuffix = (n: number) => (n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th');

function load(): Conversation[] {
  return readFileSync(LOCOMO_PATH, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Conversation);
}

/** The conversation's turns as stored: session n's turns at its wall-clock time in ZONE, 30 s apart. */
function storedTurns(c: Conversation): StoredTurn[] {
  return c.turns.map((t) => {
    const local = Date.parse(`${t.session_iso_date_time}Z`) + t.turn_index * 30_000;
    return { id: `${c.sample_id}/${t.dia_id}`, session: Number(t.dia_id.slice(1, t.dia_id.indexOf(':'))), at: instantOf(local, ZONE), local };
  });
}

function questionsOf(c: Conversation, turns: StoredTurn[], seed: number): Question[] {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: Question[] = [];
  const days = [...new Set(turns.map((t) => startOfDay(t.local)))].sort((a, b) => a - b);
  const last = Math.max(...turns.map((t) => t.local));
  const inLocal = (from: number, to: number) => new Set(turns.filter((t) => t.local >= from && t.local < to).map((t) => t.id));
  const at = (local: number) => instantOf(local, ZONE);
  const md = (day: number) => `${MONTHS[partsOf(day).month - 1]} ${partsOf(day).day}`;
  const add = (kind: string, phrasing: Question['phrasing'], question: string, nowLocal: number, relevant: Set<string>) => {
    if (relevant.size > 0) out.push({ kind, phrasing, question, now: at(nowLocal), relevant });
  };
  for (let i = 0; i < PER_KIND; i++) {
    for (const phrasing of ['templates', 'other words'] as const) {
      const other = phrasing === 'other words';
      // An absolute date. Without its year when now is later that year.
      {
        const day = pick(days);
        const { year, day: d } = partsOf(day);
        const sameYear = partsOf(last).year === year && random() < 0.5;
        const now = sameYear ? last + DAY_MS : localMs(year + 1, 2, 1, 12);
        const date = sameYear ? `${md(day)}${random() < 0.5 ? ordinalSuffix(d) : ''}` : random() < 0.5 ? `${md(day)}, ${year}` : `${d} ${MONTHS[partsOf(day).month - 1]} ${year}`;
        const q = other
          ? pick([`Remind me what we chatted about on ${date}.`, `What came up on ${WEEKDAYS[weekdayOf(day)]}, ${date}?`, `What were we talking about on ${date}?`, `Anything we went over on ${date}?`])
          : pick([`What did we discuss on ${date}?`, `What did we talk about on ${date}?`]);
        add('an absolute date', phrasing, q, now, inLocal(day, day + DAY_MS));
      }
      // A month.
      {
        const day = pick(days);
        const { year, month } = partsOf(day);
        const from = localMs(year, month, 1);
        const sameYear = partsOf(last).year === year && partsOf(last).month > month;
        const name = MONTHS[month - 1]!;
        const when = sameYear && random() < 0.5 ? name : `${name} ${year}`;
        const q = other ? pick([`What came up during ${when}?`, `Give me a recap of ${when}.`, `What were we chatting about back in ${when}?`]) : pick([`What did we discuss in ${when}?`, `What did we talk about in ${when}?`]);
        add('a month', phrasing, q, sameYear ? last + DAY_MS : localMs(year + 1, 3, 1, 12), inLocal(from, localMs(year, month + 1, 1)));
      }
      // A span of days.
      {
        const a = Math.floor(random() * days.length);
        const b = Math.min(days.length - 1, a + 1 + Math.floor(random() * 3));
        const [d1, d2] = [days[a]!, days[b]!];
        const year = partsOf(d2).year;
        const q = other
          ? pick([`What did we chat about from ${md(d1)} through ${md(d2)}, ${year}?`, `Recap everything between ${md(d1)} and ${md(d2)} ${year}.`, `What came up from ${md(d1)} until ${md(d2)}, ${year}?`])
          : pick([`What did we discuss between ${md(d1)} and ${md(d2)}, ${year}?`, `What did we talk about from ${md(d1)} to ${md(d2)}, ${year}?`]);
        add('a date span', phrasing, q, localMs(year + 1, 2, 1, 12), inLocal(d1, d2 + DAY_MS));
      }
      // N days ago.
      {
        const day = pick(days);
        const n = 1 + Math.floor(random() * 200);
        const now = day + n * DAY_MS + (9 + Math.floor(random() * 12)) * HOUR_MS;
        const amount = n <= 10 && random() < 0.5 ? NUMBERS[n]! : String(n);
        const q = other ? pick([`What did we say ${amount} days back?`, `Remind me of our chat from roughly ${amount} days ago.`, `What came up around ${amount} days ago?`]) : pick([`What did we discuss ${amount} days ago?`, `What did we talk about about ${amount} days ago?`]);
        add('N days ago', phrasing, q, now, inLocal(day, day + DAY_MS));
      }
      // N months ago.
      {
        const day = pick(days);
        const { year, month } = partsOf(day);
        const n = 1 + Math.floor(random() * 6);
        const now = localMs(year, month + n, 1 + Math.floor(random() * 27), 12);
        const amount = n === 1 ? pick(['a', 'one']) : random() < 0.5 ? NUMBERS[n]! : String(n);
        const q = other ? pick([`What came up ${amount} month${n === 1 ? '' : 's'} back?`, `What were we talking about ${amount} month${n === 1 ? '' : 's'} ago?`]) : `What did we discuss ${amount} month${n === 1 ? '' : 's'} ago?`;
        add('N months ago', phrasing, q, now, inLocal(localMs(year, month, 1), localMs(year, month + 1, 1)));
      }
      // A named day, within the week after it.
      {
        const day = pick(days);
        const now = day + (1 + Math.floor(random() * 6)) * DAY_MS + 20 * HOUR_MS;
        const name = WEEKDAYS[weekdayOf(day)]!;
        const q = other ? pick([`What did we chat about ${name}?`, `Remind me what we said this past ${name}.`, `What came up on ${name}?`]) : pick([`What did we talk about last ${name}?`, `What did we discuss on ${name}?`]);
        add('a named day', phrasing, q, now, inLocal(day, day + DAY_MS));
      }
      // Parts of a day: earlier today, this <part>, yesterday <part> / last night.
      {
        const turn = pick(turns.filter((t) => partsOf(t.local).hour >= 5 && partsOf(t.local).hour < 21));
        const sessionEnd = Math.max(...turns.filter((t) => t.session === turn.session).map((t) => t.local));
        const today = startOfDay(turn.local);
        const later = Math.min(sessionEnd + 2 * HOUR_MS, today + DAY_MS - 60_000);
        const hour = partsOf(turn.local).hour;
        const part = hour < 12 ? 'morning' : hour < 17 ? 'afternoon' : 'evening';
        const range = { morning: [5, 12], afternoon: [12, 18], evening: [17, 24] }[part];
        const roll = random();
        if (roll < 0.34) {
          const q = other ? pick([`What came up so far today?`, `Remind me what we discussed earlier today.`]) : `What did we discuss earlier today?`;
          add('earlier today, this morning…', phrasing, q, later, inLocal(today, later));
        } else if (roll < 0.67) {
          const q = other ? pick([`What were we chatting about this ${part}?`, `Recap this ${part}'s chat.`]) : `What did we talk about this ${part}?`;
          add('earlier today, this morning…', phrasing, q, Math.max(later, today + range![0]! * HOUR_MS + 60_000), inLocal(today + range![0]! * HOUR_MS, Math.min(today + range![1]! * HOUR_MS, later)));
        } else {
          const night = hour >= 18;
          const words = night && random() < 0.5 ? 'last night' : `yesterday ${part}`;
          const q = other ? pick([`What came up ${words}?`, `Remind me what we said ${words}.`]) : `What did we discuss ${words}?`;
          const window = words === 'last night' ? [18, 29] : range!;
          add('earlier today, this morning…', phrasing, q, today + DAY_MS + 10 * HOUR_MS, inLocal(today + window[0]! * HOUR_MS, today + window[1]! * HOUR_MS));
        }
      }
      // Sessions, asked a day after session j (so "the last session" is j).
      {
        const sessions = [...new Set(turns.map((t) => t.session))].sort((a, b) => a - b);
        const j = 3 + Math.floor(random() * (sessions.length - 3));
        const upTo = sessions.slice(0, j);
        const now = Math.max(...turns.filter((t) => t.session === upTo.at(-1)).map((t) => t.local)) + DAY_MS;
        const of = (...ns: number[]) => new Set(turns.filter((t) => ns.includes(t.session)).map((t) => t.id));
        const kinds: [string, string[], number[]][] = [
          ['the first session', other ? ['Recap our very first conversation.', 'What did we chat about the first time we talked?'] : ['What did we talk about in our first session?', 'What did we discuss in the first session?'], [upTo[0]!]],
          ['N sessions ago', other ? ['What came up two conversations ago?', 'What did we say 2 chats back?'] : ['What did we discuss two sessions ago?'], [upTo.at(-2)!]],
          ['the last N sessions', other ? ['Summarize our past three conversations.', 'What came up over the previous 3 chats?'] : ['What did we talk about in the last three sessions?'], upTo.slice(-3)],
          ['the session before last', other ? ['What did we chat about in the second-to-last conversation?', 'What came up in the penultimate session?'] : ['What did we discuss in the session before last?'], [upTo.at(-2)!]],
          ['the last session', other ? ['What did we say last time?', 'Remind me of our most recent chat.'] : ['What did we talk about in our last conversation?'], [upTo.at(-1)!]],
        ];
        const [kind, phrasings, relevant] = pick(kinds);
        add(`session: ${kind}`, phrasing, pick(phrasings), now, of(...relevant));
      }
    }
  }
  // Content + date: LoCoMo's own questions whose evidence lies in one day (no date in them yet), with that day or month added.
  const evidenceDay = (q: LocomoQuestion) => {
    const ids = q.evidence_ids.map((e) => `${c.sample_id}/${e}`);
    const found = turns.filter((t) => ids.includes(t.id));
    const daysOf = new Set(found.map((t) => startOfDay(t.local)));
    return found.length === ids.length && daysOf.size === 1 ? { day: [...daysOf][0]!, ids: new Set(ids) } : undefined;
  };
  const usable = c.qa.filter((q) => q.category_name !== 'temporal' && q.category_name !== 'adversarial' && casual.parse(q.question).length === 0 && evidenceDay(q));
  for (let i = 0; i < Math.min(usable.length, PER_KIND * 2); i++) {
    const q = usable[Math.floor(random() * usable.length)]!;
    const { day, ids } = evidenceDay(q)!;
    const { year, month, day: d } = partsOf(day);
    const body = q.question.replace(/\?\s*$/, '');
    const other = i % 2 === 1;
    const date = random() < 0.7 ? `on ${MONTHS[month - 1]} ${d}, ${year}` : `in ${MONTHS[month - 1]} ${year}`;
    const question = other ? `${date[0]!.toUpperCase()}${date.slice(1)}, ${body[0]!.toLowerCase()}${body.slice(1)}?` : `${body} ${date}?`;
    out.push({ kind: 'content + date', phrasing: other ? 'other words' : 'templates', question, now: instantOf(last + 30 * DAY_MS, ZONE), relevant: ids });
  }
  return out;
}

/** The baseline: chrono-node's first reading of the question, as a window by the fields it knows; turns in it first, then BM25. */
function baselineWindow(question: string, now: number): [number, number] | undefined {
  const [result] = casual.parse(question, { instant: new Date(now), timezone: offsetAt(now, ZONE) / 60_000 });
  if (!result) return undefined;
  const c = result.start;
  const local = localMs(c.get('year')!, c.get('month')!, c.get('day')!, c.get('hour') ?? 12);
  const grain = c.isCertain('day') || c.isCertain('weekday') || !c.isCertain('month') ? 'day' : c.isCertain('month') ? 'month' : 'year';
  const start = periodOf(local, grain);
  const end = result.end ? periodOf(localMs(result.end.get('year')!, result.end.get('month')!, result.end.get('day')!), grain) : start;
  return [instantOf(start.from, ZONE), instantOf(end.to, ZONE)];
}

interface Tally { n: number; engram: number[]; baseline: number[]; chance: number[] }

async function main(): Promise<void> {
  const conversations = load();
  const clock = { now: 0 };
  const ranking: RankingOptions = JSON.parse(process.env.TIME_BENCH_RANKING ?? '{}') as RankingOptions;
  const { memory } = await benchMemory({ clock: () => clock.now, timeZone: ZONE, ranking });
  const bm25 = (await benchMemory({ clock: () => clock.now, ranking: { denseWeight: 0, weights: { importance: 0, recency: 0, pinned: 0 }, speakerBoost: 0, timeQuestionBoost: 0, previousTurnWeight: 0 } })).memory;
  const all: { question: Question; user: string; turns: Map<string, number> }[] = [];
  for (const [i, c] of conversations.entries()) {
    const turns = storedTurns(c);
    const inputs = c.turns.map((t, j) => ({
      id: turns[j]!.id,
      userId: c.sample_id,
      sessionId: `${c.sample_id}/D${turns[j]!.session}`,
      speaker: t.speaker,
      text: `${t.text}${t.image_caption ? ` [image: ${t.image_caption}]` : ''}`,
      createdAt: turns[j]!.at,
    }));
    clock.now = Math.max(...turns.map((t) => t.at));
    await memory.turns.addMany(inputs);
    await bm25.turns.addMany(inputs);
    const at = new Map(turns.map((t) => [t.id, t.at]));
    for (const question of questionsOf(c, turns, 47 + i)) all.push({ question, user: c.sample_id, turns: at });
  }
  const tallies = new Map<string, Tally>();
  const latencies: number[] = [];
  const misses: string[] = [];
  for (const { question, user, turns } of all) {
    clock.now = question.now;
    const started = performance.now();
    const hits = await memory.recall(question.question, { userId: user, k: 20, touch: false });
    latencies.push(performance.now() - started);
    const engram = hits.map((h) => h.memory.id);
    const keyword = (await bm25.recall(question.question, { userId: user, k: 1000, touch: false, time: 'off' })).map((h) => h.memory.id);
    const window = baselineWindow(question.question, question.now);
    const inside = (id: string) => window !== undefined && turns.get(id)! >= window[0] && turns.get(id)! < window[1];
    const baseline = window ? [...keyword.filter(inside), ...keyword.filter((id) => !inside(id))] : keyword;
    for (const key of [`${question.kind}|${question.phrasing}`, `${question.kind}|all`, `all|${question.phrasing}`, 'all|all']) {
      const t = tallies.get(key) ?? { n: 0, engram: KS.map(() => 0), baseline: KS.map(() => 0), chance: KS.map(() => 0) };
      tallies.set(key, t);
      t.n++;
      KS.forEach((k, j) => {
        const denominator = Math.min(k, question.relevant.size);
        t.engram[j]! += engram.slice(0, k).filter((id) => question.relevant.has(id)).length / denominator;
        t.baseline[j]! += baseline.slice(0, k).filter((id) => question.relevant.has(id)).length / denominator;
        t.chance[j]! += Math.min(1, (k * question.relevant.size) / turns.size / denominator);
      });
    }
    if (process.env.TIME_BENCH_MISSES && engram.slice(0, 10).filter((id) => question.relevant.has(id)).length / Math.min(10, question.relevant.size) < 0.9) {
      misses.push(`${question.kind} | ${question.question} | now ${new Date(localOf(question.now, ZONE)).toISOString().slice(0, 16)} | relevant ${[...question.relevant].slice(0, 4).join(' ')}… | got ${engram.slice(0, 5).join(' ')}`);
    }
  }
  await memory.close();
  await bm25.close();
  const kinds = [...new Set(all.map((a) => a.question.kind))];
  const rows: (string | number)[][] = [];
  for (const kind of [...kinds, 'all']) {
    for (const phrasing of ['templates', 'other words', 'all']) {
      const t = tallies.get(`${kind}|${phrasing}`);
      if (!t) continue;
      rows.push([kind, phrasing, t.n, ...t.engram.map((s) => s / t.n), t.baseline[2]! / t.n, t.chance[2]! / t.n]);
    }
  }
  printTable(
    `Time questions over LoCoMo dev turns (${ZONE}; R@k = found / min(k, relevant)); baseline: chrono-node's window first, then BM25`,
    ['kind', 'phrasing', 'questions', ...KS.map((k) => `engram R@${k}`), 'baseline R@10', 'chance R@10'],
    rows,
  );
  latencies.sort((a, b) => a - b);
  console.log(`\nrecall (k 20) p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(2)} ms, p95 ${latencies[Math.floor(latencies.length * 0.95)]!.toFixed(2)} ms over ${latencies.length} questions (load ${loadavg()[0]!.toFixed(2)})`);
  if (misses.length > 0) console.log(`\nR@10 below 0.9 (${misses.length}):\n${misses.join('\n')}`);
}

await main();
