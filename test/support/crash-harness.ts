import type { BrowserContext, Page } from 'playwright-core';
import type { Memory } from '../../src/index.js';
import { realEmbedder } from './memory.js';
import { removedIds, withTestMemory, type RawDatabase } from './test-memory-page.js';

/**
 * What the crash tests share: a seeded plan of writes, a feed that hands
 * them to writers in the page and stops at a seeded write count (the kill
 * moment), and the checks run after every restart. Kills happen at write
 * COUNTS, not at timer ticks, so a test does the same number of kills and
 * writes however slow the machine is; only what each in-flight write was
 * doing at that moment varies, which is the point.
 */
export type WriteOp = { seq: number; kind: 'fact' | 'episode' | 'observe'; userId: string; text: string };
export type Ack = WriteOp & { id: string; scheduled: boolean };
/** What a writer in the page gets when it asks for work: a write, the order to kill the engine's workers now, or the end. */
export type Order = WriteOp | { kill: 'workers' } | null;

const WORDS = (
  'anchor badger cactus dolphin ember falcon glacier harbor igloo jasmine kettle lantern meadow nectar orchid pepper quartz raven saddle tundra ' +
  'umbrella velvet walnut yacht zephyr almond bishop canyon dagger eagle fossil garnet hammock ivory jigsaw kayak lemon marble nugget oyster ' +
  'parrot quiver rocket salmon trumpet unicorn violin wizard xylophone yogurt zebra acorn banjo cobalt donkey easel ferret gondola hazel ' +
  'iceberg jacket koala ladder mango needle olive panther quilt ribbon saffron tiger urchin vortex waffle yodel zinnia apricot beetle chisel ' +
  'dune elbow fjord goblet hornet inkwell jungle kiwi lobster magnet nutmeg otter pebble quail radish spruce thimble utensil vulture willow'
).split(' ');

/**
 * The seeded write plan: ~30% facts, ~60% episodes (one in five repeating an
 * earlier text, so dedup replaces it: newest wins) and ~10% conversation
 * turns whose episodes are background jobs. Turns stay well under the
 * episode cap, so the cap never evicts a turn's episode and "every scheduled
 * turn got its episode" holds exactly; episodes do exercise the cap.
 */
export function planWrites(random: () => number, total: number): WriteOp[] {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  const ops: WriteOp[] = [];
  const earlier: string[] = [];
  for (let seq = 0; seq < total; seq++) {
    const r = random();
    if (r < 0.3) ops.push({ seq, kind: 'fact', userId: 'crash-facts', text: `Fact ${seq}: the user likes ${words(5)}` });
    else if (r < 0.9) {
      const text = earlier.length && random() < 0.2 ? earlier[Math.floor(random() * earlier.length)]! : `Spent the day with ${words(6)}`;
      earlier.push(text);
      ops.push({ seq, kind: 'episode', userId: random() < 0.5 ? 'crash-a' : 'crash-b', text });
    } else ops.push({ seq, kind: 'observe', userId: 'crash-turns', text: `TURN-${seq} ${words(6)}` });
  }
  return ops;
}

/** `count` kill moments (write counts), one in each of `count` equal slices of (0, total), seeded within the slice. */
export function killPoints(random: () => number, count: number, total: number): number[] {
  const slice = total / (count + 1);
  return Array.from({ length: count }, (_, i) => Math.round((i + 0.5) * slice + random() * slice));
}

/**
 * Hands out the plan's writes and collects acknowledgements. A round ends at
 * its kill point: the first writer to ask for more then gets the kill
 * (`onKill` decides what that means), and every later request is parked
 * forever (the page is about to die under it).
 */
export class WriteFeed {
  readonly acks = new Map<number, Ack>();
  roundAcks: Ack[] = [];
  private next = 0;
  private stopAt = Infinity;
  private killed = true;

  constructor(readonly ops: WriteOp[]) {}

  get issued(): number {
    return this.next;
  }

  get done(): boolean {
    return this.next >= this.ops.length;
  }

  /** Starts a round that is killed once `stopAt` writes have been handed out in total (Infinity: run to the end). */
  startRound(stopAt: number): void {
    this.stopAt = stopAt;
    this.killed = false;
    this.roundAcks = [];
  }

  /** The next order for a writer; `onKill` runs once, at the kill moment, and returns what that writer gets. */
  take(onKill: () => Order | Promise<Order>): Order | Promise<Order> {
    if (this.next < Math.min(this.ops.length, this.stopAt)) return this.ops[this.next++]!;
    if (this.stopAt === Infinity || this.next >= this.ops.length) return null;
    if (this.killed) return new Promise<Order>(() => undefined);
    this.killed = true;
    return onKill();
  }

  ack(seq: number, id: string, scheduled: boolean): void {
    const ack = { ...this.ops[seq]!, id, scheduled };
    this.acks.set(seq, ack);
    this.roundAcks.push(ack);
  }
}

/** Keeps a handle on every Web Worker a page of `context` starts, so a test can kill the engine's. */
export async function recordWorkers(context: BrowserContext): Promise<void> {
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
}

/**
 * Exposes the feed to the page (exposed functions survive reloads); `onKill`
 * runs at each kill moment. Also exposes the real model, loaded once in this
 * process: a crash test restarts the page dozens of times, and loading the
 * model in each new worker (ONNX runtime compile and all) costs seconds that
 * prove nothing about crashes. The engine still runs in its Web Worker and
 * calls back for vectors (a custom embedder), so the store's work is where
 * it always is.
 */
export async function exposeFeed(page: Page, feed: WriteFeed, onKill: () => Order | Promise<Order>): Promise<void> {
  await page.exposeFunction('__nextOp', () => feed.take(onKill));
  await page.exposeFunction('__ack', (seq: number, id: string, scheduled: boolean) => feed.ack(seq, id, scheduled));
  const embedder = await realEmbedder();
  await page.exposeFunction('__embed', async (texts: string[]) => (await embedder.embed(texts)).map((v) => Array.from(v)));
  modelShape = { id: `${embedder.id} (in the test process)`, dimension: embedder.dimension };
}

let modelShape: { id: string; dimension: number } | undefined;

/**
 * Opens the crash test's memory in the page (engine in its Web Worker, the
 * real model exposed by exposeFeed), with a scripted LLM. With
 * `holdJobs`, the background (stage-2) call never answers in this page's
 * life, so every turn this life schedules is still a queued or running job
 * when the kill comes: deterministically, not by racing a timer.
 */
export async function openCrashMemory(page: Page, options: { name: string; cap: number; holdJobs: boolean }): Promise<void> {
  if (!modelShape) throw new Error('openCrashMemory: call exposeFeed first (it exposes the model)');
  await page.evaluate(async ({ name, cap, holdJobs, model }) => {
    const w = window as unknown as {
      engramDemo: { open(o: unknown): Promise<unknown> };
      testMemory: unknown;
      __embed(texts: string[]): Promise<number[][]>;
    };
    w.testMemory = await w.engramDemo.open({
      name,
      embedder: { ...model, embed: async (texts: string[]) => (await w.__embed(texts)).map((v) => new Float32Array(v)) },
      lifecycle: { maxEpisodes: cap },
      capture: { cooldownTurns: 0, cooldownMinutes: 0, maxPerDay: 100_000, noveltyMin: 0 },
      llm: async (request: { task: string; input: string }) => {
        const turn = /TURN-\d+[a-z ]*/.exec(request.input)?.[0]?.trim() ?? 'TURN-unknown';
        if (request.task === 'extract') return { output: { facts: [], hasEpisode: true } };
        if (request.task === 'episode') {
          if (holdJobs) await new Promise(() => undefined);
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
  }, { ...options, model: modelShape });
}

/**
 * Runs `streams` concurrent writers in the page, each pulling orders from the
 * feed and acknowledging every write that resolved. Resolves with the error
 * that stopped a writer (expected once the page or its worker is killed: the
 * caller decides), or null when the plan ran out.
 */
export function startWriters(page: Page, streams: number): Promise<Error | null> {
  return page
    .evaluate(async (streams) => {
      const w = window as unknown as {
        testMemory: Memory;
        __workers: Worker[];
        __nextOp(): Promise<Order>;
        __ack(seq: number, id: string, scheduled: boolean): Promise<void>;
        __workersKilled(): Promise<void>;
      };
      const stream = async () => {
        for (let order = await w.__nextOp(); order; order = await w.__nextOp()) {
          if ('kill' in order) {
            // Terminated synchronously while the other writers' calls are in flight in the worker.
            w.__workers.forEach((worker) => worker.terminate());
            await w.__workersKilled();
            return new Promise<void>(() => undefined);
          }
          const m = w.testMemory;
          let id: string;
          let scheduled = false;
          if (order.kind === 'fact') id = (await m.facts.add({ userId: order.userId, text: order.text })).id;
          else if (order.kind === 'episode') id = (await m.episodes.add({ userId: order.userId, text: order.text })).id;
          else {
            const result = await m.observe({ userId: order.userId, user: order.text, assistant: 'Noted.' });
            id = `turn:${order.seq}`;
            scheduled = result.episodeScheduled;
          }
          void w.__ack(order.seq, id, scheduled);
        }
      };
      await Promise.all(Array.from({ length: streams }, stream));
    }, streams)
    .then(
      () => null,
      (error: Error) => error,
    );
}

/** Acknowledged writes (not turns) that are neither in the store nor removed by a recorded dedup/eviction decision. */
export function missingAcks(raw: RawDatabase, acks: Iterable<Ack>): Ack[] {
  const present = new Set([...raw.episodes.map((e) => e.id), ...raw.facts.map((f) => f.id)]);
  const removed = removedIds(raw);
  return [...acks].filter((a) => a.kind !== 'observe' && !present.has(a.id) && !removed.has(a.id));
}

/** Recalls each acknowledged memory still stored by its own text (16 at a time); returns the ids not in the top 10. */
export async function unrecallable(page: Page, raw: RawDatabase, acks: Iterable<Ack>): Promise<string[]> {
  const present = new Set([...raw.episodes.map((e) => e.id), ...raw.facts.map((f) => f.id)]);
  const probes = [...acks].filter((a) => a.kind !== 'observe' && present.has(a.id)).map((a) => ({ id: a.id, userId: a.userId, text: a.text }));
  return withTestMemory(
    page,
    async (memory, probes) => {
      const missing: string[] = [];
      for (let i = 0; i < probes.length; i += 16) {
        await Promise.all(
          probes.slice(i, i + 16).map(async (p) => {
            const hits = await memory.recall(p.text, { userId: p.userId, k: 10, touch: false });
            if (!hits.some((h) => h.memory.id === p.id)) missing.push(p.id);
          }),
        );
      }
      return missing;
    },
    probes,
  );
}

/** Acknowledged turns that scheduled an episode but whose episode is not stored. */
export function turnsWithoutEpisode(raw: RawDatabase, acks: Iterable<Ack>): number[] {
  const turnTexts = raw.episodes.filter((e) => e.userId === 'crash-turns').map((e) => e.text);
  return [...acks].filter((a) => a.kind === 'observe' && a.scheduled && !turnTexts.some((t) => t.includes(`${a.text.split(' ')[0]} `))).map((a) => a.seq);
}
