import { describe, expect, it } from 'vitest';
import { createMemory, type Embedder, type Memory, type Progress } from '../../src/index.js';
import { freshIndexedDB, MODEL, MODEL_PATH, realEmbedder } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

const memories = memoryFixture();
const track = async (memory: Promise<Memory>): Promise<Memory> => memories.keep(await memory);

describe('add and recall', () => {
  it('recalls an episode and a fact by meaning and keywords, with score parts', async () => {
    const memory = await memories.open();
    const episode = await memory.episodes.add({
      goal: 'Choose a database for the analytics project',
      context: 'Compared Postgres, SQLite and DuckDB on a 50 GB event log',
      outcome: 'Picked DuckDB for fast columnar scans',
      quality: 'success',
    });
    const fact = await memory.facts.add({ text: 'The user lives in Porto, Portugal', category: 'profile' });
    await memory.facts.add({ text: 'The user is allergic to peanuts', category: 'profile' });

    const dbHits = await memory.recall('which database did we choose?');
    expect(dbHits[0]!.memory.id).toBe(episode.id);
    expect(dbHits[0]!.parts.similarity).toBeGreaterThan(0);
    expect(dbHits[0]!.parts.keyword).toBe(1);
    for (const key of ['similarity', 'keyword', 'relevance', 'recency', 'importance', 'pinned', 'source'] as const) {
      expect(typeof dbHits[0]!.parts[key]).toBe('number');
    }
    const cityHits = await memory.recall('where does the user live?', { k: 1 });
    expect(cityHits).toHaveLength(1);
    expect(cityHits[0]!.memory.id).toBe(fact.id);
  });

  it('stores the episode text as goal + blank line + context', async () => {
    const memory = await memories.open();
    const e = await memory.episodes.add({ goal: 'Fix the flaky login test', context: 'It failed one run in ten on CI' });
    expect(e.text).toBe('Fix the flaky login test\n\nIt failed one run in ten on CI');
    expect(await memory.episodes.get(e.id)).toEqual(e);
  });

  it('updates and deletes, and recall follows at once', async () => {
    const memory = await memories.open();
    const fact = await memory.facts.add({ text: 'Favourite editor is Vim' });
    await memory.facts.update(fact.id, { text: 'Favourite editor is Emacs' });
    const hits = await memory.recall('emacs');
    expect(hits[0]!.memory.text).toBe('Favourite editor is Emacs');
    await memory.facts.delete(fact.id);
    expect(await memory.recall('emacs')).toEqual([]);
  });
});

describe('persistence', () => {
  it('keeps memories across close() and reopening the same name', async () => {
    const idb = freshIndexedDB();
    const embedder = await realEmbedder();
    const first = await track(createMemory({ name: 'persist', ...idb, embedder }));
    const e = await first.episodes.add({ text: 'We migrated the billing service to Kubernetes', tags: ['infra'] });
    await first.close();

    const second = await track(createMemory({ name: 'persist', ...idb, embedder }));
    expect(await second.episodes.get(e.id)).toEqual(e);
    const hits = await second.recall('kubernetes migration');
    expect(hits.map((h) => h.memory.id)).toEqual([e.id]);
    expect((await second.info()).indexed).toBe(1);
  });

  it('loads the model from the options (localModelPath) and reports progress', async () => {
    const progress: Progress[] = [];
    const memory = await track(
      createMemory({ name: 'from-options', ...freshIndexedDB(), embedder: { model: MODEL, localModelPath: MODEL_PATH }, onProgress: (p) => progress.push(p) }),
    );
    expect((await memory.info()).embedder).toEqual({ id: `transformers.js/${MODEL}/q8`, dimension: 128 });
    expect(progress.some((p) => p.phase === 'index' && p.progress === 1)).toBe(true);
  });
});

describe('per-user isolation', () => {
  it('never returns or lists another user\'s memories', async () => {
    const memory = await memories.open();
    await memory.facts.add({ userId: 'ana', text: 'Ana plays the cello in an orchestra' });
    await memory.facts.add({ userId: 'ben', text: 'Ben plays the cello too, badly' });
    const hits = await memory.recall('cello', { userId: 'ana' });
    expect(hits.map((h) => h.memory.userId)).toEqual(['ana']);
    expect((await memory.facts.list({ userId: 'ben' })).map((f) => f.userId)).toEqual(['ben']);
    expect(await memory.recall('cello')).toEqual([]); // the default user has nothing
  });
});

describe('filters', () => {
  it('filters recall by type, tags, time range, metadata and archived state', async () => {
    const memory = await memories.open();
    const t0 = Date.UTC(2026, 0, 1);
    const day = 86_400_000;
    const trip = await memory.episodes.add({ text: 'Planned the hiking trip to the Alps', tags: ['travel'], createdAt: t0, metadata: { project: 'alps' } });
    const budget = await memory.episodes.add({ text: 'Planned the hiking budget spreadsheet', tags: ['money'], createdAt: t0 + 10 * day, metadata: { project: 'money' } });
    const fact = await memory.facts.add({ text: 'Loves hiking in the mountains', createdAt: t0 + 20 * day });
    const old = await memory.episodes.add({ text: 'Hiking boots were returned to the shop', state: 'archived', createdAt: t0 + 5 * day });

    const ids = async (opts: Parameters<Memory['recall']>[1]) => (await memory.recall('hiking', opts)).map((h) => h.memory.id).sort();
    expect(await ids({ types: ['fact'] })).toEqual([fact.id]);
    expect(await ids({ tags: ['travel'] })).toEqual([trip.id]);
    expect(await ids({ since: t0 + day, until: t0 + 15 * day })).toEqual([budget.id]);
    expect(await ids({ since: new Date(t0 + 15 * day) })).toEqual([fact.id]);
    expect(await ids({ filter: { project: ['alps', 'nope'] } })).toEqual([trip.id]);
    expect(await ids({})).toEqual([trip.id, budget.id, fact.id].sort());
    expect(await ids({ includeArchived: true })).toEqual([trip.id, budget.id, fact.id, old.id].sort());

    expect((await memory.episodes.list({ tags: ['money'] })).map((e) => e.id)).toEqual([budget.id]);
    expect((await memory.episodes.list({ order: 'asc' })).map((e) => e.id)).toEqual([trip.id, old.id, budget.id]);
    expect((await memory.episodes.list({ state: ['archived'] })).map((e) => e.id)).toEqual([old.id]);
  });
});

describe('export and import', () => {
  it('round-trips everything: a fresh database gives identical recall results', async () => {
    // A fixed clock: recall records access times, which would otherwise differ between the two stores.
    const clock = () => Date.UTC(2026, 0, 1);
    const source = await memories.open({ clock });
    await source.episodes.add({ goal: 'Ship the mobile app beta', context: 'TestFlight review took three days', outcome: 'Beta shipped to 40 testers', quality: 'partial', tags: ['mobile'] });
    await source.facts.add({ text: 'Works at a fintech startup in Berlin', category: 'profile', pinned: true });
    await source.facts.add({ userId: 'other', text: 'Another user entirely' });
    const file = await source.export();

    for (const vectors of [true, false]) {
      const exported = vectors ? file : await source.export({ vectors: false });
      const target = await memories.open({ clock });
      const summary = await target.import(exported);
      expect(summary).toMatchObject({ episodes: 1, facts: 2, reembedded: vectors ? 0 : 3 });
      for (const query of ['mobile beta release', 'where do they work?']) {
        const a = await source.recall(query);
        const b = await target.recall(query);
        expect(b.map((h) => h.memory)).toEqual(a.map((h) => h.memory));
        b.forEach((hit, i) => expect(hit.score).toBeCloseTo(a[i]!.score, 5));
      }
      expect(await target.recall('another', { userId: 'other' })).toHaveLength(1);
    }
  });

  it('exports one user only when asked', async () => {
    const memory = await memories.open();
    await memory.facts.add({ userId: 'a', text: 'fact of a' });
    await memory.facts.add({ userId: 'b', text: 'fact of b' });
    const text = await (await memory.export({ userId: 'a' })).text();
    expect(text).toContain('fact of a');
    expect(text).not.toContain('fact of b');
  });
});

describe('re-embedding when the embedder changes', () => {
  it('re-embeds every memory with progress instead of mixing vector spaces', async () => {
    const idb = freshIndexedDB();
    const base = await realEmbedder();
    const first = await track(createMemory({ name: 'reembed', ...idb, embedder: base }));
    await first.facts.add({ text: 'Drinks oat milk in coffee' });
    await first.episodes.add({ text: 'Refactored the payment module into three services' });
    await first.close();

    // A different, 384-wide embedder: the real model's vector followed by a scaled copy and zeros.
    const wide: Embedder = {
      id: 'wide-test-embedder',
      dimension: 384,
      async embed(texts) {
        return (await base.embed(texts)).map((v) => {
          const out = new Float32Array(384);
          out.set(v, 0);
          out.set(v.map((x) => x * 0.5), 128);
          return out;
        });
      },
    };
    const progress: Progress[] = [];
    const second = await track(createMemory({ name: 'reembed', ...idb, embedder: wide, onProgress: (p) => progress.push(p) }));
    expect(progress.filter((p) => p.phase === 'reembed').at(-1)).toMatchObject({ loaded: 2, total: 2, progress: 1 });
    expect(await second.info()).toMatchObject({ embedder: { id: 'wide-test-embedder', dimension: 384 }, indexed: 2 });
    expect((await second.recall('oat milk coffee'))[0]!.memory.text).toBe('Drinks oat milk in coffee');
    const exported = await (await second.export()).text();
    expect(exported).toContain('"dimension":384');
    await second.close();

    // Reopening with the same embedder again does not re-embed.
    const again: Progress[] = [];
    await track(createMemory({ name: 'reembed', ...idb, embedder: wide, onProgress: (p) => again.push(p) }));
    expect(again.some((p) => p.phase === 'reembed')).toBe(false);
  });
});
