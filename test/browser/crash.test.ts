import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium } from '../support/browser.js';
import { seededRandom } from '../support/seeded-random.js';
import { consistencyProblems, readRawDatabase, removedIds, waitDemoReady, withTestMemory, type RawDatabase } from '../support/test-memory-page.js';

/**
 * Crash at any point: 1,000 memories are written through the public API (in
 * the demo page, engine in its Web Worker) while the harness kills the worker
 * or reloads the page at seeded random moments. After every restart the
 * store must be whole: every acknowledged write present (or removed by a
 * recorded dedup/eviction decision) and recallable, no record without its
 * vector or the reverse, the index matching the store, and the background
 * jobs the crash left queued resumed.
 */
const SEED = 20_260_601;
const TOTAL_WRITES = 1000;
const MIN_KILLS = 20;
const DB = `crash-${Date.now()}`;
const CAP = 150;
/** Ops handed out per round (between two kills), so the 1,000 writes span well over MIN_KILLS kills. */
const OPS_PER_ROUND = 50;

type Op = { seq: number; kind: 'fact' | 'episode' | 'observe'; userId: string; text: string };
type Ack = Op & { id: string; scheduled?: boolean };

let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;
beforeAll(async () => {
  server = await startDemoServer();
  browser = await launchChromium();
  context = await browser.newContext();
  // Keep a handle on every Web Worker the page starts, so the harness can kill the engine's.
  await context.addInitScript(() => {
    const Native = window.Worker;
    const started: Worker[] = [];
    (window as unknown as { __workers: Worker[] }).__workers = started;
    window.Worker = class extends Native {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        started.push(this);
      }
    };
  });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const WORDS = (
  'anchor badger cactus dolphin ember falcon glacier harbor igloo jasmine kettle lantern meadow nectar orchid pepper quartz raven saddle tundra ' +
  'umbrella velvet walnut yacht zephyr almond bishop canyon dagger eagle fossil garnet hammock ivory jigsaw kayak lemon marble nugget oyster ' +
  'parrot quiver rocket salmon trumpet unicorn violin wizard xylophone yogurt zebra acorn banjo cobalt donkey easel ferret gondola hazel ' +
  'iceberg jacket koala ladder mango needle olive panther quilt ribbon saffron tiger urchin vortex waffle yodel zinnia apricot beetle chisel ' +
  'dune elbow fjord goblet hornet inkwell jungle kiwi lobster magnet nutmeg otter pebble quail radish spruce thimble utensil vulture willow'
).split(' ');

/** The seeded write plan: facts, episodes (with deliberate near-duplicates) and conversation turns whose episodes are background jobs. */
function planWrites(random: () => number): Op[] {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  const ops: Op[] = [];
  const earlier: string[] = [];
  for (let seq = 0; seq < TOTAL_WRITES; seq++) {
    const r = random();
    if (r < 0.3) ops.push({ seq, kind: 'fact', userId: 'crash-facts', text: `Fact ${seq}: the user likes ${words(5)}` });
    // Turns are ~10% of the plan (~100, well under CAP), so the cap never evicts a turn's episode and
    // "every scheduled turn got its episode" holds exactly; episodes (~300 per user) do exercise the cap.
    else if (r < 0.9) {
      // One in five episodes repeats an earlier one: dedup replaces it (newest wins).
      const text = earlier.length && random() < 0.2 ? earlier[Math.floor(random() * earlier.length)]! : `Spent the day with ${words(6)}`;
      earlier.push(text);
      ops.push({ seq, kind: 'episode', userId: random() < 0.5 ? 'crash-a' : 'crash-b', text });
    } else ops.push({ seq, kind: 'observe', userId: 'crash-turns', text: `TURN-${seq} ${words(6)}` });
  }
  return ops;
}

/** Opens the crash test's memory in the page, with an LLM whose background (stage-2) call is slow, so kills find jobs queued or running. */
async function openCrashMemory(page: Page): Promise<void> {
  await page.evaluate(
    async ({ name, cap }) => {
      const w = window as unknown as { engramDemo: { open(o: unknown): Promise<unknown> }; testMemory: unknown };
      w.testMemory = await w.engramDemo.open({
        name,
        lifecycle: { maxEpisodes: cap },
        capture: { cooldownTurns: 0, cooldownMinutes: 0, maxPerDay: 100_000, noveltyMin: 0 },
        llm: async (request: { task: string; input: string }) => {
          const turn = /TURN-\d+[a-z ]*/.exec(request.input)?.[0]?.trim() ?? 'TURN-unknown';
          if (request.task === 'extract') return { output: { facts: [], hasEpisode: true } };
          if (request.task === 'episode') {
            await new Promise((r) => setTimeout(r, 150));
            return {
              output: {
                goal: turn,
                context: turn,
                approach: 'Talked it through step by step',
                outcome: 'Reached a clear decision together',
                quality: 'success',
                tags: ['crash-test'],
                actors: ['user'],
              },
            };
          }
          throw new Error(`unexpected LLM task ${request.task}`);
        },
      });
    },
    { name: DB, cap: CAP },
  );
}

/** Runs the writers in the page: two concurrent streams pull ops from the harness and acknowledge each resolved write. */
function startWriters(page: Page): Promise<unknown> {
  return page
    .evaluate(async () => {
      const w = window as unknown as {
        testMemory: import('../../src/index.js').Memory;
        __nextOp(): Promise<Op | null>;
        __ack(seq: number, id: string, scheduled: boolean): Promise<void>;
      };
      const stream = async () => {
        for (let op = await w.__nextOp(); op; op = await w.__nextOp()) {
          const m = w.testMemory;
          let id: string;
          let scheduled = false;
          if (op.kind === 'fact') id = (await m.facts.add({ userId: op.userId, text: op.text })).id;
          else if (op.kind === 'episode') id = (await m.episodes.add({ userId: op.userId, text: op.text })).id;
          else {
            const result = await m.observe({ userId: op.userId, user: op.text, assistant: 'Noted.' });
            id = `turn:${op.seq}`;
            scheduled = result.episodeScheduled;
          }
          void w.__ack(op.seq, id, scheduled);
        }
      };
      await Promise.all([stream(), stream()]);
    })
    .catch(() => undefined); // The page was reloaded or its worker killed under it: that is the point.
}

/** Every acknowledged write is in the store, or was removed by a recorded dedup/eviction decision. */
function missingAcks(raw: RawDatabase, acks: Ack[]): Ack[] {
  const present = new Set([...raw.episodes.map((e) => e.id), ...raw.facts.map((f) => f.id)]);
  const removed = removedIds(raw);
  return acks.filter((a) => a.kind !== 'observe' && !present.has(a.id) && !removed.has(a.id));
}

/** Recalls each acknowledged memory that is still stored by its own text; returns those not found in the top 10. */
async function unrecallable(page: Page, raw: RawDatabase, acks: Ack[]): Promise<string[]> {
  const present = new Set([...raw.episodes.map((e) => e.id), ...raw.facts.map((f) => f.id)]);
  const probes = acks.filter((a) => a.kind !== 'observe' && present.has(a.id)).map((a) => ({ id: a.id, userId: a.userId, text: a.text }));
  return withTestMemory(
    page,
    async (memory, probes) => {
      const missing: string[] = [];
      for (const p of probes) {
        const hits = await memory.recall(p.text, { userId: p.userId, k: 10, touch: false });
        if (!hits.some((h) => h.memory.id === p.id)) missing.push(p.id);
      }
      return missing;
    },
    probes,
  );
}

describe('crash at any point (Chromium)', () => {
  it(`${TOTAL_WRITES} writes through the public API with the worker killed or the page reloaded at seeded random moments`, async () => {
    const random = seededRandom(SEED);
    const ops = planWrites(random);
    let next = 0;
    let roundLimit = 0;
    const acks = new Map<number, Ack>();
    let roundAcks: Ack[] = [];
    const page = await context.newPage();
    // Exposed functions survive reloads: the harness hands out ops and collects acknowledgements.
    await page.exposeFunction('__nextOp', () => (next < Math.min(ops.length, roundLimit) ? ops[next++] : null));
    await page.exposeFunction('__ack', (seq: number, id: string, scheduled: boolean) => {
      const ack = { ...ops[seq]!, id, scheduled };
      acks.set(seq, ack);
      roundAcks.push(ack);
    });

    let kills = 0;
    let workerKills = 0;
    const jobsLeftByCrashes = new Set<string>();
    const restart = async () => {
      await waitDemoReady(page);
      // Before the engine reopens: the store as the crash left it.
      const raw = await readRawDatabase(page, DB);
      expect(consistencyProblems(raw)).toEqual([]);
      expect(missingAcks(raw, [...acks.values()])).toEqual([]);
      for (const job of raw.jobs) jobsLeftByCrashes.add(job.id);
      await openCrashMemory(page);
    };

    await page.goto(server.url);
    await restart();
    while (next < ops.length) {
      roundLimit = next + OPS_PER_ROUND;
      roundAcks = [];
      const writers = startWriters(page);
      await new Promise((r) => setTimeout(r, 300 + random() * 1100));
      if (random() < 0.5) {
        // Kill the engine's worker (the demo's and the test's) mid-write, then restart the page.
        await page.evaluate(() => (window as unknown as { __workers: Worker[] }).__workers.forEach((w) => w.terminate())).catch(() => undefined);
        workerKills++;
      }
      await page.reload({ waitUntil: 'load' });
      await writers;
      kills++;
      if (process.env.CRASH_VERBOSE) console.log(`round ${kills}: issued ${next}, acknowledged ${acks.size}`);

      await restart();
      // What the round acknowledged is recallable now, after the restart.
      const raw = await readRawDatabase(page, DB);
      expect(await unrecallable(page, raw, roundAcks)).toEqual([]);
    }

    // A clean end: one more restart, then let the queue drain (jobs resumed after the crashes), then check everything.
    await page.reload();
    await restart();
    await withTestMemory(page, (memory) => memory.idle());
    const raw = await readRawDatabase(page, DB);
    const all = [...acks.values()];
    const problems = consistencyProblems(raw);
    const missing = missingAcks(raw, all);
    expect(problems).toEqual([]);
    expect(missing).toEqual([]);
    expect(raw.jobs).toEqual([]);
    expect(raw.events.filter((e) => e.type === 'job' && e.data.outcome === 'dropped')).toEqual([]);
    // Every acknowledged turn that scheduled an episode got it written by its (possibly resumed) job.
    const turnTexts = raw.episodes.filter((e) => e.userId === 'crash-turns').map((e) => e.text);
    const turnsWithoutEpisode = all.filter((a) => a.kind === 'observe' && a.scheduled && !turnTexts.some((t) => t.includes(`${a.text.split(' ')[0]} `)));
    expect(turnsWithoutEpisode.map((a) => a.seq)).toEqual([]);
    // The index matches the store: every record has its vector and keyword entry in the engine.
    const searchable = raw.episodes.length + raw.facts.filter((f) => f.status !== 'retired').length;
    expect(await withTestMemory(page, async (memory) => (await memory.info()).indexed)).toBe(searchable);
    expect(await unrecallable(page, raw, all)).toEqual([]);

    const stored = raw.episodes.length + raw.facts.length;
    console.log(
      `crash test: kills ${kills} (${workerKills} worker kills, ${kills - workerKills} page reloads), writes issued ${next}, writes acknowledged ${acks.size}, ` +
        `acknowledged writes found ${all.length - missing.length} (${all.filter((a) => a.kind === 'observe').length} turns; ${removedIds(raw).size} removed by recorded dedup/eviction), ` +
        `records stored ${stored}, orphans ${problems.length}, jobs found queued after a crash ${jobsLeftByCrashes.size} (all resumed and finished)`,
    );
    expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);
    expect(acks.size).toBeGreaterThan(TOTAL_WRITES * 0.8);
    await page.close();
  }, 300_000);
});
