import { describe, expect, it } from 'vitest';
import type { ChangeEvent, Memory, MemoryOptions } from '../../src/index.js';
import { freshIndexedDB } from '../support/memory.js';
import { ChangeSignal, type ChangeMessage } from '../../src/index-sync/change-signal.js';
import { MemoryIndex } from '../../src/search/memory-index.js';
import { EngramDatabase } from '../../src/store/database.js';
import { memoryFixture } from '../support/memory-fixture.js';
import { settleTasks } from '../support/fake-time.js';
import { writerLoop } from '../../bench/visibility-loops.js';

/**
 * Several engines on one database: what two tabs do in a browser, here as
 * two engines on one fake-indexeddb factory (real IndexedDB transaction
 * semantics). They share nothing but the database and the cross-tab change
 * signal (BroadcastChannel).
 */
const memories = memoryFixture();

/** `count` engines on one database. */
async function engines(count: number, options: Partial<MemoryOptions> = {}): Promise<[Memory, Memory, ...Memory[]]> {
  const shared = { name: `multi-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB(), ...options };
  const out: Memory[] = [];
  for (let i = 0; i < count; i++) out.push(await memories.open(shared));
  return out as [Memory, Memory, ...Memory[]];
}

/**
 * Resolves once `check` holds, looking again each time `receiver` hears of a
 * change (its `change` event: its index has applied it), or only of one
 * that `relevant` picks. No time limit: a refresh that never comes is a hung
 * test, which the test timeout ends.
 */
async function eventually(receiver: Memory, check: () => Promise<boolean>, relevant: (event: ChangeEvent) => boolean = () => true): Promise<void> {
  for (;;) {
    // Listening before looking: a change between the look and the wait is not missed.
    let off = () => {};
    const changed = new Promise<void>((resolve) => {
      off = receiver.on('change', (event) => {
        if (relevant(event)) resolve();
      });
    });
    try {
      if (await check()) return;
      await changed;
    } finally {
      off();
    }
  }
}

const recalledIds = async (m: Memory, query: string, userId: string) =>
  (await m.recall(query, { userId, k: 10, touch: false })).map((h) => h.memory.id);

describe('two engines on one database (fake-indexeddb)', () => {
  it('a memory written in one engine becomes recallable in the other, and a delete disappears from it', async () => {
    const [a, b] = await engines(2);
    const heard: ChangeEvent[] = [];
    b.on('change', (e) => heard.push(e));

    const fact = await a.facts.add({ userId: 'u', text: 'The user keeps three hives of bees on the allotment' });
    const episode = await a.episodes.add({ userId: 'u', text: 'Migrated the billing service from MySQL to Postgres over one weekend' });
    await eventually(b, async () => (await recalledIds(b, 'beekeeping', 'u')).includes(fact.id));
    await eventually(b, async () => (await recalledIds(b, 'database migration of billing', 'u')).includes(episode.id));
    // Other engines' changes reach the app's `change` listeners too.
    expect(heard.flatMap((e) => e.written)).toEqual(expect.arrayContaining([fact.id, episode.id]));

    await a.facts.delete(fact.id);
    // Recall already skips a record that is gone; the other engine's index drops it too.
    await eventually(b, async () => (await b.info()).indexed === 1);
    expect(await recalledIds(b, 'beekeeping', 'u')).not.toContain(fact.id);

    // And back the other way, with an update that changes the text (a new vector).
    await b.episodes.update(episode.id, { text: 'Moved the billing service onto managed Postgres in the cloud' });
    await eventually(a, async () => (await recalledIds(a, 'managed cloud database', 'u'))[0] === episode.id);
  });

  it('completed tasks written in one engine are found by tasks.relevant in the other', async () => {
    const [a, b] = await engines(2);
    const task = await a.tasks.start({ userId: 'u', description: 'Add rate limiting to the public REST API', type: 'code-generation', context: { domain: 'web', language: 'typescript', complexity: 'moderate', tags: [] } });
    task.log({ tool: 'editor', action: 'add middleware', parameters: {}, result: { kind: 'success', output: 'ok' }, latencyMs: 50 });
    await task.complete({ kind: 'success', verdict: 'limits enforced', artifacts: [] });
    await eventually(b, async () => (await b.tasks.relevant({ description: 'throttle API requests', context: {} }, { userId: 'u' })).some((t) => t.task.id === task.id));
  });

  it('concurrent writes from three engines: no acknowledged write is lost and the cap is never exceeded at rest', async () => {
    const cap = 25;
    const all = await engines(3, { lifecycle: { maxEpisodes: cap } });
    const topics = ['gardening', 'invoices', 'kubernetes', 'climbing', 'sourdough', 'tax returns', 'guitar', 'the move to Porto'];
    const written = await Promise.all(
      all.map(async (m, e) => {
        const ids: { episodes: string[]; facts: string[] } = { episodes: [], facts: [] };
        // Each engine writes its own stream; the streams interleave in IndexedDB.
        for (let i = 0; i < 20; i++) {
          const topic = topics[(i + e) % topics.length]!;
          ids.episodes.push((await m.episodes.add({ userId: 'u', text: `Engine ${e} note ${i}: a long afternoon spent on ${topic}, session number ${i * 7 + e}` })).id);
          if (i % 4 === 0) ids.facts.push((await m.facts.add({ userId: 'u', text: `Engine ${e} fact ${i}: the user cares about ${topic}` })).id);
        }
        return ids;
      }),
    );
    for (const m of all) await m.idle();

    const [a] = all;
    const stored = await a!.episodes.list({ userId: 'u', limit: 10_000 });
    expect(stored.length).toBeLessThanOrEqual(cap);
    // Every acknowledged episode is either stored or was evicted/replaced by a recorded decision.
    const { events } = await a!.activity({ limit: 10_000 });
    const removed = new Set(events.flatMap((ev) => (ev.type === 'eviction' ? (ev.data.evicted as string[]) : ev.type === 'dedup' ? [ev.data.replacedId as string] : [])));
    const present = new Set(stored.map((s) => s.id));
    const acknowledged = written.flatMap((w) => w.episodes);
    const lost = acknowledged.filter((id) => !present.has(id) && !removed.has(id));
    expect(lost).toEqual([]);
    const facts = new Set((await a!.facts.list({ userId: 'u', limit: 10_000 })).map((f) => f.id));
    // Every acknowledged fact is stored: current, or retired into the history of the near-identical fact it merged with.
    const missing: string[] = [];
    for (const id of written.flatMap((w) => w.facts)) await a!.facts.get(id).catch(() => missing.push(id));
    expect(missing).toEqual([]);
    console.log(`three engines: ${acknowledged.length} episodes acknowledged, ${stored.length} stored (cap ${cap}), ${removed.size} evicted or replaced, lost 0; ${facts.size} facts`);

    // Every engine's index converges on what IndexedDB holds.
    for (const m of all) {
      await eventually(m, async () => (await m.info()).indexed === present.size + facts.size);
    }
  });

  it('dedup holds across engines: the same episode written by two engines at once is stored once', async () => {
    const [a, b] = await engines(2);
    const texts = [
      'Decided to move the weekly standup to Thursday so the Lisbon team can join',
      'Fixed the memory leak in the image upload service by closing file handles',
      'Booked the venue for the March offsite and sent the agenda to everyone',
      'Rewrote the onboarding email sequence after the churn analysis',
      'Replaced the flaky end-to-end login test with a contract test',
    ];
    // Each pair is written at the same moment: both engines embed and decide before either commits.
    const pairs = await Promise.all(texts.map(async (text) => Promise.all([a!.episodes.add({ userId: 'u', text }), b!.episodes.add({ userId: 'u', text })])));
    await a!.idle();
    await b!.idle();

    const stored = await a!.episodes.list({ userId: 'u', limit: 1000 });
    expect(stored.map((e) => e.text).sort()).toEqual([...texts].sort());
    const { events } = await a!.activity({ limit: 1000 });
    const dedups = events.filter((e) => e.type === 'dedup');
    expect(dedups).toHaveLength(texts.length);
    for (const [first, second] of pairs) {
      const survivor = stored.find((e) => e.text === first.text)!;
      // Newest wins: the survivor is one of the two, and the dedup event names the other.
      expect([first.id, second.id]).toContain(survivor.id);
      const loser = survivor.id === first.id ? second.id : first.id;
      expect(dedups.some((d) => d.data.replacedId === loser && d.data.byId === survivor.id)).toBe(true);
    }
  });

  it('an engine that missed every signal (it was closed) is correct after it reopens', async () => {
    const options = { name: `missed-${process.pid}-${Date.now()}`, ...freshIndexedDB() };
    const a = await memories.open(options);
    const b = await memories.open(options);
    await b.close();
    const fact = await a.facts.add({ userId: 'u', text: 'The user is learning Japanese for a trip to Osaka' });
    const reopened = await memories.open(options);
    expect(await recalledIds(reopened, 'language lessons', 'u')).toContain(fact.id);
  });

  it("an engine that is still opening keeps what other engines commit meanwhile, and applies it once it listens", async () => {
    const shared = { name: `multi-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
    const a = await memories.open(shared);
    // The opening engine's side: its signal exists (as from before its index read), but it does not listen yet.
    const opening = new ChangeSignal(shared.name, shared.indexedDB);
    // Another engine that listens, to know when the message went out.
    const heardBy: ChangeMessage[] = [];
    const witness = new ChangeSignal(shared.name, shared.indexedDB);
    const db = new EngramDatabase(shared.name, { indexedDB: shared.indexedDB, IDBKeyRange: shared.IDBKeyRange });
    await db.open();
    try {
      const targets = (index: MemoryIndex, heard: ChangeMessage[]) => ({ db, dimension: index.dimension, index, taskIndex: new MemoryIndex(index.dimension), onRefreshed: (m: ChangeMessage) => void heard.push(m) });
      const dimension = (await a.info()).embedder.dimension;
      let witnessHeard!: () => void;
      const heardByWitness = new Promise<void>((resolve) => (witnessHeard = resolve));
      witness.listen({ ...targets(new MemoryIndex(dimension), heardBy), onRefreshed: (m: ChangeMessage) => (heardBy.push(m), witnessHeard()) });
      const fact = await a.facts.add({ userId: 'u', text: 'The user is learning Portuguese' });
      // The witness has read and applied it; the opening signal got the same broadcast (a few turns of the event loop more, at most).
      await heardByWitness;
      await settleTasks();
      const index = new MemoryIndex(dimension);
      const heard: ChangeMessage[] = [];
      opening.listen(targets(index, heard));
      await opening.settled();
      expect(index.has(fact.id)).toBe(true);
      expect(heard.flatMap((m) => m.written)).toContain(fact.id);
    } finally {
      opening.close();
      witness.close();
      db.close();
    }
  });
});

describe('six engines on one database, all writing without pauses', () => {
  it('a write committed in one engine is recalled by each of the others while they keep writing', async () => {
    const all = await engines(6);
    const stop = { stopped: false };
    // Every engine writes facts, turns and episodes back to back (the stream bench/visibility.ts measures).
    const writing = all.map((m, e) => writerLoop(m, e, stop));
    try {
      for (let p = 0; p < all.length; p++) {
        const id = `probe-${p}`;
        const text = `Probe ${p}: the locker code for gym bag number ${p} is written on the blue ticket`;
        await all[p]!.facts.add({ id, userId: 'probe', text });
        // Each other engine hears of it (its change event) and recalls it, while all of them go on writing.
        const others = all.filter((_, e) => e !== p);
        await Promise.all(others.map((m) => eventually(m, async () => (await recalledIds(m, text, 'probe')).includes(id), (event) => event.written.includes(id))));
      }
    } finally {
      // The writers ran until now (one that failed rejects here).
      stop.stopped = true;
      await Promise.all(writing);
    }
  });
});
