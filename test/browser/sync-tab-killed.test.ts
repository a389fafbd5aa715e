import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import type { MemoryOptions } from '../../src/index.js';
import { createSyncHandler, pgliteSyncStore, toNodeHandler } from '../../src/server.js';
import { BARE_PAGE_DIR, launchChromium, launchKillableChromium, type KillableChromium } from '../support/browser.js';
import { cutTornTail } from '../support/leveldb-log.js';
import { bearerSpaces } from '../support/sync-hub.js';
import { consistencyProblems, openDemoTab, openTestMemory, readRawDatabase, waitDemoReady, withTestMemory, type RawDatabase } from '../support/test-memory-page.js';

/**
 * A device killed in the middle of a pull (Chromium, persistent profile):
 * a phone has written a space that takes several pull batches; a laptop
 * joins and pulls. The hub (Node, loopback) hands out two batches, then
 * holds the laptop's third pull request open and tells the test, which
 * SIGKILLs the laptop's whole browser while that request is pending. The
 * laptop's browser restarts on the same profile and syncs again.
 *
 * What the code guarantees (sync-round.ts, engine-replica.ts): a batch and
 * the pull state after it are committed in one transaction, so the
 * relaunched device resumes after the last batch it applied (not from the
 * start), applies each remaining row once, and ends with the phone's
 * export: facts with their supersession history, episodes without
 * duplicates, every record with its vector.
 */
const DB = 'laptop';
const PULL_LIMIT = 6;
const SPACE = 'space-killed';

let db: PGlite;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let profile: string;
let phoneBrowser: Browser;
let laptop: KillableChromium | undefined;

/** Every pull request the hub received: who asked, after which cursor. */
const pulls: { device: string; after: string }[] = [];
/** Set by the test: the pull request that comes after `passes` more from a device other than `except` is held open, and `reached` told its cursor. */
let hold: { except: string; passes: number; reached: (after: string) => void } | null = null;

beforeAll(async () => {
  db = await PGlite.create();
  const hub = createSyncHandler({ store: pgliteSyncStore(db), authorize: bearerSpaces({ 'user-token': SPACE }) });
  const gated = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/pull')) {
      const device = url.searchParams.get('device') ?? '';
      const after = url.searchParams.get('after') ?? '';
      pulls.push({ device, after });
      if (hold && device !== hold.except) {
        if (hold.passes === 0) {
          hold.reached(after);
          hold = null;
          // Never answered: the browser is killed while it waits.
          return new Promise<Response>(() => undefined);
        }
        hold.passes--;
      }
    }
    return hub(request);
  };
  server = await startDemoServer({ pageDir: BARE_PAGE_DIR, sync: toNodeHandler(gated) });
  profile = mkdtempSync(join(tmpdir(), 'engram-sync-killed-'));
  phoneBrowser = await launchChromium();
});
afterAll(async () => {
  await laptop?.kill();
  await phoneBrowser?.close();
  await server?.close();
  await db?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const syncOptions = (): Pick<MemoryOptions, 'sync'> => ({
  sync: {
    remote: { url: `${server.url}sync`, headers: { authorization: 'Bearer user-token' }, retries: 0, pullLimit: PULL_LIMIT },
    key: { secret: 'a secret both devices were given, 32+ bytes' },
    space: SPACE,
    autoStart: false,
  },
});
const exportLines = (page: Page) =>
  withTestMemory(page, async (memory) => (await (await memory.export()).text()).trim().split('\n').slice(1, -1).sort());
const countRows = async (where: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM engram_sync_changes ${where}`, params)).rows[0]!.n);

const EPISODES = [
  'Booked the night train from Lisbon to Madrid for the conference',
  'Repaired the flat tyre on the cargo bike with a new inner tube',
  'Cooked a mushroom risotto for six guests on Saturday',
  'Renewed the passport at the consulate after two hours in the queue',
  'Planted tomatoes and basil on the balcony in late April',
  'Finished reading a long novel about whaling in the nineteenth century',
  'Called the plumber about the leaking kitchen tap',
  'Ran a half marathon along the river in under two hours',
];

/** Starts the laptop's Chromium on its profile and opens the page (reading the store first, as a browser just killed may refuse the first open). */
async function launchLaptop(): Promise<{ page: Page; raw: RawDatabase }> {
  laptop = await launchKillableChromium(profile);
  const context = laptop.browser.contexts()[0]!;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(server.url);
  await waitDemoReady(page);
  for (let attempt = 1; ; attempt++) {
    try {
      return { page, raw: await readRawDatabase(page, DB) };
    } catch (error) {
      // Chromium may refuse the first indexedDB.open after a whole-browser SIGKILL ("Internal error opening backing store"); a later one succeeds.
      if (attempt >= 20 || !/Internal error opening backing store/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

it('a device killed while a pull is under way resumes after its last applied batch: nothing lost, nothing applied twice', async () => {
  // The phone writes a space that takes several batches of PULL_LIMIT rows, and pushes it.
  const phone = await openDemoTab(await phoneBrowser.newContext(), server.url);
  await openTestMemory(phone, { name: 'phone', ...syncOptions() });
  const phoneDevice = await withTestMemory(phone, async (memory, episodes) => {
    const facts = await memory.facts.addMany(Array.from({ length: 20 }, (_, i) => ({ userId: 'ana', text: `Ana's locker number at the gym ${i} is ${1000 + i * 37}` })));
    await memory.facts.delete(facts[3]!.id);
    // A fact merged twice: three versions, two of them retired, in its history.
    await memory.facts.add({ userId: 'ana', text: 'Ana lives in Lyon', category: 'profile' });
    await memory.facts.add({ userId: 'ana', text: 'Ana lives in Lyon.', category: 'profile' });
    await memory.facts.add({ userId: 'ana', text: 'Ana lives in Lyon!', category: 'profile' });
    for (const text of episodes) await memory.episodes.add({ userId: 'ana', text });
    await memory.profile.update('ana', { city: 'Lyon', name: 'Ana' });
    await memory.sync.now();
    return memory.sync.status.device!;
  }, EPISODES);
  const total = await countRows('');
  expect(total, 'the space spans more than three batches').toBeGreaterThan(3 * PULL_LIMIT);

  // The laptop joins and pulls; the hub holds its third pull request, and the test kills the browser while it waits.
  let { page } = await launchLaptop();
  await openTestMemory(page, { name: DB, ...syncOptions() });
  const held = new Promise<string>((reached) => (hold = { except: phoneDevice, passes: 2, reached }));
  const pulling = withTestMemory(page, async (memory) => memory.sync.now()).catch((error: Error) => error);
  const heldAfter = await held;
  const laptopDevice = await withTestMemory(page, async (memory) => memory.sync.status.device!);
  expect(pulls.filter((p) => p.device === laptopDevice).map((p) => p.after)).toHaveLength(3);
  // Two batches applied and on disk, the rest not: the kill falls in the middle of the pull.
  const before = await readRawDatabase(page, DB);
  const appliedBefore = await countRows('WHERE cursor <= $1::bigint', [heldAfter]);
  expect(appliedBefore).toBe(2 * PULL_LIMIT);
  expect(before.facts.length + before.episodes.length).toBeGreaterThan(0);
  expect(before.facts.length + before.episodes.length).toBeLessThan(total);
  await laptop!.kill();
  expect(await pulling).toBeInstanceOf(Error);
  // Chromium's torn-log bug (test/support/leveldb-log.ts): cut what LevelDB itself reads as the end of the log.
  cutTornTail(join(profile, 'Default', 'IndexedDB'));

  // The same profile again: the batches applied before the kill are there, whole.
  const relaunched = await launchLaptop();
  page = relaunched.page;
  expect(consistencyProblems(relaunched.raw)).toEqual([]);
  expect(relaunched.raw.facts.map((f) => f.id).sort()).toEqual(before.facts.map((f) => f.id).sort());
  expect(relaunched.raw.episodes.map((e) => e.id).sort()).toEqual(before.episodes.map((e) => e.id).sort());

  await openTestMemory(page, { name: DB, ...syncOptions() });
  const pullsBefore = pulls.length;
  const resumed = await withTestMemory(page, async (memory) => ({ device: memory.sync.status.device, round: await memory.sync.now() }));
  // The same device, resuming after the cursor of its last applied batch (not from the start), and applying only the rows after it.
  const resumedPulls = pulls.slice(pullsBefore).filter((p) => p.device === laptopDevice);
  expect(resumedPulls[0]).toEqual({ device: laptopDevice, after: heldAfter });
  expect(resumed.round).toMatchObject({ pushed: 0, applied: total - appliedBefore });

  // Nothing lost: the same export as the phone; nothing twice: one of each episode, the fact's three versions once each.
  expect(await exportLines(page)).toEqual(await exportLines(phone));
  const episodesOf = (p: Page) => withTestMemory(p, async (memory) => (await memory.episodes.list({ userId: 'ana' })).map((e) => e.text).sort());
  expect(await episodesOf(page)).toEqual([...EPISODES].sort());
  const historyOf = (p: Page) =>
    withTestMemory(p, async (memory) => {
      const [current] = (await memory.facts.list({ userId: 'ana', category: ['profile'] })) as { id: string }[];
      return (await memory.facts.history(current!.id)).map((f) => ({ id: f.id, text: f.text, status: f.status, supersededBy: f.supersededBy }));
    });
  const history = await historyOf(page);
  expect(history.map((f) => f.status)).toEqual(['retired', 'retired', 'current']);
  expect(history).toEqual(await historyOf(phone));
  expect(consistencyProblems(await readRawDatabase(page, DB))).toEqual([]);
  // And a further round has nothing to move either way.
  expect(await withTestMemory(page, async (memory) => memory.sync.now())).toMatchObject({ pushed: 0, applied: 0 });
  await withTestMemory(page, async (memory) => memory.close());
});
