import { IDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbedderError, NotFoundError, QuotaError, type DedupEvent, type Embedder } from '../../src/index.js';
import { realEmbedder, snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const { open } = memoryFixture();

/** A controllable clock for time-based rules. */
function manualClock(start = Date.UTC(2026, 5, 1)) {
  const clock = { now: start, fn: () => clock.now };
  return clock;
}

/** The real model, with a switch that makes the next embed call fail. */
async function breakableEmbedder(): Promise<Embedder & { failNext: boolean }> {
  const base = await realEmbedder();
  const e = {
    id: base.id,
    dimension: base.dimension,
    failNext: false,
    async embed(texts: string[]) {
      if (e.failNext) {
        e.failNext = false;
        throw new Error('model crashed');
      }
      return base.embed(texts);
    },
  };
  return e;
}

describe('dedup-on-write', () => {
  const original = 'Decided to move the team standup from 9am to 10am so the Lisbon people can join';
  const nearCopy = 'Decided to move the team standup from 9am to 10am so the Lisbon folks can join';
  const different = 'Fixed the memory leak in the image upload service by closing file handles';

  it('replaces at and above the threshold (newest wins), re-points children and records the decision', async () => {
    const m = await open();
    const events: DedupEvent[] = [];
    m.on('dedup', (e) => events.push(e));
    const old = await m.episodes.add({ text: original });
    const child = await m.episodes.add({ text: different, parentId: old.id });
    const fresh = await m.episodes.add({ text: nearCopy });

    await expect(m.episodes.get(old.id)).rejects.toThrow(/No episode/);
    expect((await m.episodes.get(child.id)).parentId).toBe(fresh.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ replacedId: old.id, byId: fresh.id });
    expect(events[0]!.similarity).toBeGreaterThanOrEqual(0.92);
    const ids = (await m.recall('standup time')).map((h) => h.memory.id);
    expect(ids).toContain(fresh.id);
    expect(ids).not.toContain(old.id);
  });

  it('keeps both below the threshold, and threshold 0 disables dedup', async () => {
    const embedder = await realEmbedder();
    const [a, b] = await embedder.embed([original, nearCopy]);
    const cosine = a!.reduce((s, x, i) => s + x * b![i]!, 0);
    expect(cosine).toBeGreaterThan(0.92);

    const strict = await open({ lifecycle: { dedupThreshold: Math.min(1, cosine + 0.01) } });
    await strict.episodes.add({ text: original });
    await strict.episodes.add({ text: nearCopy });
    expect(await strict.episodes.list()).toHaveLength(2);

    const atThreshold = await open({ lifecycle: { dedupThreshold: cosine - 1e-6 } });
    await atThreshold.episodes.add({ text: original });
    await atThreshold.episodes.add({ text: nearCopy });
    expect(await atThreshold.episodes.list()).toHaveLength(1);

    const off = await open({ lifecycle: { dedupThreshold: 0 } });
    await off.episodes.add({ text: original });
    await off.episodes.add({ text: original });
    expect(await off.episodes.list()).toHaveLength(2);
  });

  it('provenance: untrusted never replaces trusted; trusted replaces untrusted', async () => {
    const m = await open();
    const trusted = await m.episodes.add({ text: original });
    const untrusted = await m.episodes.add({ text: nearCopy, provenance: 'untrusted' });
    expect((await m.episodes.list()).map((e) => e.id).sort()).toEqual([trusted.id, untrusted.id].sort());

    const m2 = await open();
    const u = await m2.episodes.add({ text: original, provenance: 'untrusted' });
    const t = await m2.episodes.add({ text: nearCopy });
    expect((await m2.episodes.list()).map((e) => e.id)).toEqual([t.id]);
    expect(u.id).not.toBe(t.id);
  });

  it('a failed embedding deletes nothing and fails with a typed error', async () => {
    const embedder = await breakableEmbedder();
    const m = await open({ embedder });
    await m.episodes.add({ text: original });
    const before = await snapshot(m);
    embedder.failNext = true;
    await expect(m.episodes.add({ text: nearCopy })).rejects.toBeInstanceOf(EmbedderError);
    expect(await snapshot(m)).toEqual(before);
  });

  it('writing the same id twice updates it and never yields two rows', async () => {
    const m = await open();
    await m.episodes.add({ id: 'same', text: 'first version of the note' });
    await m.episodes.add({ id: 'same', text: 'second version of the note about something else' });
    const all = await m.episodes.list();
    expect(all).toHaveLength(1);
    expect(all[0]!.text).toBe('second version of the note about something else');
  });
});

describe('eviction', () => {
  it('TTL by creation time, then the count cap oldest first; pinned episodes are exempt', async () => {
    const clock = manualClock();
    const m = await open({ clock: clock.fn, lifecycle: { ttlDays: 30, maxEpisodes: 3, dedupThreshold: 0 } });
    const topics = ['gardening', 'taxes', 'guitar', 'sourdough', 'marathon', 'kayak', 'chess'];
    const ids: string[] = [];
    const pinned = await m.episodes.add({ text: 'Pinned: the user\'s wedding anniversary plans', pinned: true, createdAt: clock.now - 100 * DAY });
    const expired = await m.episodes.add({ text: `Notes about ${topics[0]}`, createdAt: clock.now - 31 * DAY });
    for (let i = 1; i <= 4; i++) {
      clock.now += HOUR;
      ids.push((await m.episodes.add({ text: `Notes about ${topics[i]}` })).id);
    }
    const left = (await m.episodes.list({ order: 'asc' })).map((e) => e.id);
    // expired went by TTL, ids[0] by the cap (3 unpinned allowed), pinned stays.
    expect(left).toEqual([pinned.id, ids[1], ids[2], ids[3]]);
    expect(left).not.toContain(expired.id);
    for (const gone of [expired.id, ids[0]!]) {
      await expect(m.episodes.get(gone)).rejects.toThrow(/No episode/);
      expect((await m.recall(`notes about`, { k: 50 })).map((h) => h.memory.id)).not.toContain(gone);
      expect(await (await m.export()).text()).not.toContain(gone);
    }
  });

  it('prune() applies the policy now and returns the evicted ids', async () => {
    const clock = manualClock();
    const m = await open({ clock: clock.fn, lifecycle: { ttlDays: 7, dedupThreshold: 0 } });
    const a = await m.episodes.add({ text: 'Booked the dentist appointment' });
    const b = await m.episodes.add({ userId: 'other', text: 'Renewed the passport' });
    clock.now += 8 * DAY;
    const c = await m.episodes.add({ text: 'Planned the birthday party' });
    expect((await m.episodes.list()).map((e) => e.id)).toEqual([c.id]); // the write evicted a
    expect(await m.prune({ userId: 'other' })).toEqual({ evicted: [b.id] });
    expect(await m.prune()).toEqual({ evicted: [] });
    // The write of c already evicted a (its ttl had passed): it is gone, not merely unlisted.
    await expect(m.episodes.get(a.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('sixteen concurrent writers for one user never exceed the cap and lose no reported write', async () => {
    const m = await open({ lifecycle: { maxEpisodes: 10, dedupThreshold: 0 } });
    const evicted = new Set<string>();
    m.on('eviction', (e) => e.evicted.forEach((id) => evicted.add(id)));
    const written = await Promise.all(
      Array.from({ length: 16 }, (_, i) => m.episodes.add({ text: `Concurrent note number ${i} about topic ${i * 7}` })),
    );
    const left = new Set((await m.episodes.list({ limit: 100 })).map((e) => e.id));
    expect(left.size).toBe(10);
    expect(evicted.size).toBe(6);
    // Every write that was reported as stored is either still there or was evicted by the cap, announced.
    for (const w of written) expect(left.has(w.id) !== evicted.has(w.id)).toBe(true);
    expect((await m.recall('concurrent note', { k: 50 })).length).toBe(10);
  });
});

describe('quota exceeded', () => {
  const realPut = IDBObjectStore.prototype.put;
  let failures = 0;
  function failPuts(count: number) {
    failures = count;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (failures > 0 && this.name === 'episodes') {
        failures--;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return realPut.apply(this, args);
    } as IDBObjectStore['put'];
  }
  afterEach(() => {
    IDBObjectStore.prototype.put = realPut;
    failures = 0;
  });

  it('evicts the oldest unpinned episodes and retries once', async () => {
    const m = await open({ lifecycle: { dedupThreshold: 0 } });
    const old = await m.episodes.add({ text: 'Oldest note about the garden shed', createdAt: 1 });
    const keep = await m.episodes.add({ text: 'Pinned note about allergies', pinned: true, createdAt: 0 });
    failPuts(1);
    const fresh = await m.episodes.add({ text: 'A new note about the car service' });
    const ids = (await m.episodes.list()).map((e) => e.id).sort();
    expect(ids).toEqual([keep.id, fresh.id].sort());
    expect(ids).not.toContain(old.id);
  });

  it('fails with QuotaError when the retry fails too, leaving the store as it was', async () => {
    const m = await open({ lifecycle: { dedupThreshold: 0 } });
    await m.episodes.add({ text: 'Existing note about the bike' });
    const before = await snapshot(m);
    failPuts(2);
    await expect(m.episodes.add({ text: 'Another note about the piano' })).rejects.toBeInstanceOf(QuotaError);
    IDBObjectStore.prototype.put = realPut;
    expect(await snapshot(m)).toEqual(before);
    expect((await m.recall('bike')).length).toBe(1);
  });
});

describe('chaining', () => {
  const day1 = 'Started migrating the billing service from Heroku to Kubernetes, wrote the Helm chart';
  const day2 = 'Continued migrating the billing service from Heroku to Kubernetes, fixed the Helm chart secrets';

  it('auto-links to a similar episode that ended within 48 hours', async () => {
    const clock = manualClock();
    const m = await open({ clock: clock.fn });
    const first = await m.episodes.add({ text: day1 });
    clock.now += 30 * HOUR;
    const second = await m.episodes.add({ text: day2 });
    expect(second.parentId).toBe(first.id);
    expect((await m.episodes.chain(second.id)).map((e) => e.id)).toEqual([first.id, second.id]);
    expect((await m.episodes.children(first.id)).map((e) => e.id)).toEqual([second.id]);
  });

  it('does not link outside the window or below the threshold', async () => {
    const clock = manualClock();
    const m = await open({ clock: clock.fn });
    await m.episodes.add({ text: day1 });
    clock.now += 49 * HOUR;
    expect((await m.episodes.add({ text: day2 })).parentId).toBeNull();

    const embedder = await realEmbedder();
    const [a, b] = await embedder.embed([day1, day2]);
    const cosine = a!.reduce((s, x, i) => s + x * b![i]!, 0);
    expect(cosine).toBeGreaterThan(0.85);
    const strict = await open({ clock: clock.fn, lifecycle: { chainThreshold: cosine + 0.001 } });
    await strict.episodes.add({ text: day1 });
    clock.now += HOUR;
    expect((await strict.episodes.add({ text: day2 })).parentId).toBeNull();
  });

  it('an explicit parentId wins, and parentId: null means no parent', async () => {
    const clock = manualClock();
    const m = await open({ clock: clock.fn });
    const first = await m.episodes.add({ text: day1 });
    const unrelated = await m.episodes.add({ text: 'Bought a new espresso machine for the office' });
    clock.now += HOUR;
    expect((await m.episodes.add({ text: day2, parentId: unrelated.id })).parentId).toBe(unrelated.id);
    clock.now += HOUR;
    expect((await m.episodes.add({ text: `${day2} again`, parentId: null })).parentId).toBeNull();
    expect(first.parentId).toBeNull();
  });

  it('chain() is root-first and refuses to create cycles', async () => {
    const m = await open({ lifecycle: { chainThreshold: 0.999 } });
    const a = await m.episodes.add({ text: 'Step one: sketched the garden layout' });
    const b = await m.episodes.add({ text: 'Step two: bought seeds and soil', parentId: a.id });
    const c = await m.episodes.add({ text: 'Step three: planted tomatoes and basil', parentId: b.id });
    expect((await m.episodes.chain(b.id)).map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    await expect(m.episodes.update(a.id, { parentId: c.id })).rejects.toThrow(/cycle/);
    await expect(m.episodes.update(a.id, { parentId: a.id })).rejects.toThrow(/own parent/);
  });

  it('deleting an episode splices it out of its arc', async () => {
    const m = await open({ lifecycle: { chainThreshold: 0.999 } });
    const a = await m.episodes.add({ text: 'Arc start: planned the kitchen renovation' });
    const b = await m.episodes.add({ text: 'Arc middle: chose the tiles', parentId: a.id });
    const c = await m.episodes.add({ text: 'Arc end: tiled the floor', parentId: b.id });
    await m.episodes.delete(b.id);
    expect((await m.episodes.get(c.id)).parentId).toBe(a.id);
  });
});
