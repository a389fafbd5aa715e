import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { BARE_PAGE_DIR, launchChromium } from '../support/browser.js';
import {
  exposeFeed,
  killPoints,
  missingAcks,
  openCrashMemory,
  planWrites,
  recordWorkers,
  startWriters,
  turnsWithoutEpisode,
  unrecallable,
  WriteFeed,
} from '../support/crash-harness.js';
import { seededRandom } from '../support/seeded-random.js';
import { consistencyProblems, readRawDatabase, removedIds, waitDemoReady, withTestMemory } from '../support/test-memory-page.js';

/**
 * Crash at any point: 1,100 writes (at least 1,000 acknowledged) through the
 * public API, engine in its Web Worker, from four concurrent writers, while
 * the harness kills the engine's worker or reloads the page at 24 seeded
 * write counts, with the other writers' calls in flight. After every restart
 * the store must be whole: every acknowledged write present (or removed by a
 * recorded dedup/eviction decision) and recallable, no record without its
 * vector or the reverse, the index matching the store; the background jobs
 * the crashes left queued resume and finish. Vectors come from the real
 * model, loaded once in the test process (see exposeFeed in crash-harness.ts).
 *
 * The browser process lives on (an in-memory context), so this proves
 * atomicity when the engine dies mid-write; crash-on-disk.test.ts kills the
 * whole browser on a profile directory for durability.
 *
 * Nothing here waits on a timer: kills come at write counts, and a third of
 * the page lives hold their background LLM calls until the kill, so queued
 * jobs at a crash are certain rather than a race.
 */
const SEED = 20_260_601;
/** Planned writes: enough that at least MIN_ACKS are acknowledged although the writes in flight at each kill may not be. */
const TOTAL_WRITES = 1100;
const MIN_ACKS = 1000;
const KILLS = 24;
const WRITERS = 4;
const DB = 'crash';
const CAP = 150;

let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let context: BrowserContext;
beforeAll(async () => {
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR });
  browser = await launchChromium();
  context = await browser.newContext();
  await recordWorkers(context);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

describe('crash at any point (Chromium)', () => {
  it(`${TOTAL_WRITES} writes through the public API with the worker killed or the page reloaded at ${KILLS} seeded write counts`, async () => {
    const random = seededRandom(SEED);
    const feed = new WriteFeed(planWrites(random, TOTAL_WRITES));
    const points = killPoints(random, KILLS, TOTAL_WRITES);
    const page = await context.newPage();

    // At a kill moment the writer that asked either terminates the workers itself (then confirms) or is parked while the page reloads.
    let killKind: 'workers' | 'reload' = 'reload';
    let onKilled = () => {};
    await exposeFeed(page, feed, () => {
      if (killKind === 'workers') return { kill: 'workers' };
      onKilled();
      return new Promise(() => undefined);
    });
    await page.exposeFunction('__workersKilled', () => onKilled());

    const counts = { workerKills: 0, reloads: 0, heldLives: 0, jobsAtCrash: 0 };
    const jobsLeftByCrashes = new Set<string>();
    let holdJobs = false;
    let heldTurnsScheduled = 0;
    const restart = async () => {
      await waitDemoReady(page);
      // Before the engine reopens: the store as the crash left it.
      const raw = await readRawDatabase(page, DB);
      expect(consistencyProblems(raw)).toEqual([]);
      expect(missingAcks(raw, feed.acks.values())).toEqual([]);
      // A life that held its LLM calls left every turn it scheduled as a queued job.
      if (holdJobs) expect(raw.jobs.length).toBeGreaterThanOrEqual(heldTurnsScheduled);
      for (const job of raw.jobs) jobsLeftByCrashes.add(job.id);
      return raw;
    };

    await page.goto(server.url);
    let raw = await restart();
    for (let round = 0; round <= KILLS; round++) {
      const point = points[round] ?? Infinity;
      killKind = random() < 0.5 ? 'workers' : 'reload';
      holdJobs = point !== Infinity && random() < 1 / 3;
      await openCrashMemory(page, { name: DB, cap: CAP, holdJobs });
      // What the previous round acknowledged is recallable now, after the restart.
      expect(await unrecallable(page, raw, feed.roundAcks)).toEqual([]);

      const killed = new Promise<void>((resolve) => (onKilled = resolve));
      feed.startRound(point);
      const writers = startWriters(page, WRITERS);
      if (point === Infinity) {
        // The rest of the plan, without a kill.
        expect(await writers).toBeNull();
        expect(feed.done).toBe(true);
      } else {
        // A writer that stops before the kill moment failed for a reason of its own: that is a defect.
        const early = await Promise.race([killed.then(() => undefined), writers]);
        if (early !== undefined) throw new Error(`a writer stopped before the kill at write ${point}: ${early?.message ?? 'the plan ran out'}`);
        if (killKind === 'workers') counts.workerKills++;
        else counts.reloads++;
        if (holdJobs) counts.heldLives++;
      }
      heldTurnsScheduled = holdJobs ? feed.roundAcks.filter((a) => a.kind === 'observe' && a.scheduled).length : 0;
      await page.reload({ waitUntil: 'load' });
      await writers;
      if (process.env.CRASH_VERBOSE) console.log(`round ${round} (${point === Infinity ? 'clean end' : killKind} at write ${point}): acknowledged ${feed.acks.size}`);
      raw = await restart();
      if (raw.jobs.length) counts.jobsAtCrash++;
    }

    // A clean end: the last reload was a restart without a kill; let the queue drain (jobs resumed after the crashes), then check everything.
    await openCrashMemory(page, { name: DB, cap: CAP, holdJobs: false });
    await withTestMemory(page, (memory) => memory.idle());
    raw = await readRawDatabase(page, DB);
    const all = [...feed.acks.values()];
    const problems = consistencyProblems(raw);
    const missing = missingAcks(raw, all);
    expect(problems).toEqual([]);
    expect(missing).toEqual([]);
    expect(raw.jobs).toEqual([]);
    expect(raw.events.filter((e) => e.type === 'job' && e.data.outcome === 'dropped')).toEqual([]);
    // Every acknowledged turn that scheduled an episode got it written by its (possibly resumed) job.
    expect(turnsWithoutEpisode(raw, all)).toEqual([]);
    // The index matches the store: every record has its vector and keyword entry in the engine.
    const searchable = raw.episodes.length + raw.facts.filter((f) => f.status !== 'retired').length;
    expect(await withTestMemory(page, async (memory) => (await memory.info()).indexed)).toBe(searchable);
    expect(await unrecallable(page, raw, all)).toEqual([]);

    const kills = counts.workerKills + counts.reloads;
    console.log(
      `crash test: kills ${kills} (${counts.workerKills} worker kills, ${counts.reloads} page reloads; ${counts.heldLives} with background LLM calls held), ` +
        `writes issued ${feed.issued}, acknowledged ${feed.acks.size} (${all.filter((a) => a.kind === 'observe').length} turns), found ${all.length - missing.length} ` +
        `(${removedIds(raw).size} removed by recorded dedup/eviction), records stored ${raw.episodes.length + raw.facts.length}, orphans ${problems.length}, ` +
        `restarts with queued jobs ${counts.jobsAtCrash}, jobs found queued after a crash ${jobsLeftByCrashes.size} (all resumed and finished)`,
    );
    expect(kills).toBe(KILLS);
    expect(counts.workerKills).toBeGreaterThan(0);
    expect(counts.reloads).toBeGreaterThan(0);
    expect(counts.heldLives).toBeGreaterThan(0);
    expect(jobsLeftByCrashes.size).toBeGreaterThan(0);
    expect(feed.acks.size).toBeGreaterThanOrEqual(MIN_ACKS);
    await page.close();
  }, 900_000);
});
