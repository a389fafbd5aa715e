import { IDBObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { QuotaError, type EpisodeEvent, type Memory, type MemoryOptions } from '../../src/index.js';
import { snapshot } from '../support/memory.js';
import { scriptedLLM, episodeDraft } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * A full disk in Node: IndexedDB (fake-indexeddb, real semantics) refuses
 * writes to chosen stores with a `QuotaExceededError` DOMException, as a
 * browser does when the origin's quota is used up. Every write path either
 * evicts by its policy and retries once, or rejects with a QuotaError; the
 * store stays consistent and readable, and writing works again once there is
 * room. (Episode writes are covered in lifecycle.test.ts.)
 */
const realPut = IDBObjectStore.prototype.put;
const realAdd = IDBObjectStore.prototype.add;
let full: Set<string> = new Set();
let refusals = 0;

/** The disk is full for these object stores (`'*'`: every one) until `diskHasRoom()`. */
function diskFullFor(...stores: string[]) {
  full = new Set(stores);
  for (const [method, real] of [['put', realPut], ['add', realAdd]] as const) {
    IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (full.has('*') || full.has(this.name)) {
        refusals++;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return real.apply(this, args);
    } as IDBObjectStore['put'];
  }
}
function diskHasRoom() {
  full = new Set();
  IDBObjectStore.prototype.put = realPut;
  IDBObjectStore.prototype.add = realAdd;
}

const memories = memoryFixture({ defaults: { lifecycle: { dedupThreshold: 0 } } });
// Registered after the fixture, so the disk has room again before the fixture closes the memories (after-hooks run last first).
afterEach(() => {
  diskHasRoom();
  refusals = 0;
});
async function open(options: Partial<MemoryOptions> = {}) {
  const m = await memories.open(options);
  await m.episodes.add({ id: 'e-old', text: 'An old note about the garden shed' });
  await m.facts.add({ id: 'f-old', text: 'The user grows tomatoes' });
  return m;
}

/** Every current record has its vector and every vector its record; recall still answers. */
async function expectConsistent(m: Memory) {
  const lines = (await snapshot(m)).map((l) => JSON.parse(l) as { kind: string; id?: string; record?: { id: string; status?: string } });
  const vectors = lines.filter((l) => l.kind === 'vector').map((l) => l.id).sort();
  const searchable = lines.filter((l) => l.kind === 'episode' || (l.kind === 'fact' && l.record!.status === 'current')).map((l) => l.record!.id).sort();
  expect(vectors).toEqual(searchable);
  expect((await m.info()).indexed).toBe(vectors.length);
  expect((await m.recall('garden shed')).map((h) => h.memory.id)).toContain('e-old');
}

async function rejectsWithQuota(m: Memory, call: () => Promise<unknown>) {
  const before = await snapshot(m);
  await expect(call()).rejects.toBeInstanceOf(QuotaError);
  expect(refusals).toBeGreaterThan(0);
  diskHasRoom();
  expect(await snapshot(m)).toEqual(before);
  await expectConsistent(m);
}

describe('a full disk when a memory opens', () => {
  it('rejects with a QuotaError naming the open, not a bare IndexedDB AbortError; the store opens once there is room', async () => {
    // Every object store refuses writes: what a browser does when the origin's quota is used up before the first open.
    diskFullFor('*');
    const opening = memories.open({ name: 'full-at-open' });
    await expect(opening).rejects.toBeInstanceOf(QuotaError);
    await expect(opening).rejects.toThrow(/Storage quota exceeded while opening "full-at-open"/);
    expect(refusals).toBeGreaterThan(0);
    diskHasRoom();
    const m = await memories.open({ name: 'full-at-open' });
    await m.facts.add({ text: 'The user grows tomatoes' });
    expect((await m.recall('tomatoes')).map((h) => h.memory.text)).toEqual(['The user grows tomatoes']);
  });
});

describe('a full disk on every write path other than episodes', () => {
  it('facts.add and facts.addMany: QuotaError, nothing written, then writing resumes', async () => {
    const m = await open();
    diskFullFor('facts');
    await rejectsWithQuota(m, () => m.facts.add({ text: 'The user has a dog called Rex' }));
    diskFullFor('vectorBlocks');
    await rejectsWithQuota(m, () => m.facts.addMany([{ text: 'Likes jazz' }, { text: 'Plays the piano' }]));
    diskFullFor('facts');
    await rejectsWithQuota(m, () => m.facts.update('f-old', { text: 'The user grows cherry tomatoes' }));
    expect((await m.facts.add({ text: 'The user has a dog called Rex' })).text).toMatch(/Rex/);
    await expectConsistent(m);
  });

  it('import: QuotaError and not one record of the file is written', async () => {
    const source = await memories.open();
    for (let i = 0; i < 5; i++) await source.episodes.add({ text: `Imported note ${i} about sailing lessons` });
    await source.facts.add({ text: 'The imported user likes sailing' });
    const file = await (await source.export()).text();
    const m = await open();
    for (const store of ['episodes', 'vectorBlocks', 'facts']) {
      diskFullFor(store);
      await rejectsWithQuota(m, () => m.import(file));
    }
    expect(await m.import(file)).toMatchObject({ episodes: 5, facts: 1 });
    await expectConsistent(m);
  });

  it('tasks: start and complete reject with QuotaError; a failed flush keeps its steps and a later flush writes them', async () => {
    const m = await open();
    const context = { complexity: 'simple' as const, domain: 'web', tags: [] };
    diskFullFor('tasks');
    await rejectsWithQuota(m, () => m.tasks.start({ description: 'Fix the login form', type: 'debugging', context }));

    const task = await m.tasks.start({ description: 'Fix the login form', type: 'debugging', context });
    task.log({ tool: 'edit_file', action: 'edit', parameters: {}, result: { kind: 'success', output: 'ok' }, latencyMs: 5 });
    task.log({ tool: 'run_tests', action: 'test', parameters: {}, result: { kind: 'success', output: 'green' }, latencyMs: 9 });
    diskFullFor('steps');
    await rejectsWithQuota(m, () => task.flush());
    await task.flush();
    expect((await m.tasks.get(task.id)).steps.map((s) => s.tool)).toEqual(['edit_file', 'run_tests']);

    diskFullFor('tasks');
    await rejectsWithQuota(m, () => task.complete({ kind: 'success', verdict: 'fixed', artifacts: [] }));
    expect((await m.tasks.get(task.id)).status).toBe('running');
    expect((await task.complete({ kind: 'success', verdict: 'fixed', artifacts: [] })).reward.base).toBe(1);
  });

  it('observe, stage 1: the facts of the turn are refused together with QuotaError; the turn can be observed again', async () => {
    const llm = scriptedLLM({ extract: { output: { facts: [{ text: 'The user adopted a cat called Miso', category: 'profile', importance: 0.9 }], hasEpisode: true } }, profile: { output: { updates: {} } } });
    const m = await open({ llm: llm.provider, capture: { cooldownTurns: 0, cooldownMinutes: 0 } });
    const turn = { user: 'I adopted a cat called Miso.', assistant: 'Lovely!' };
    diskFullFor('jobs');
    await rejectsWithQuota(m, () => m.observe(turn));
    diskFullFor('facts');
    await rejectsWithQuota(m, () => m.observe(turn));
    expect((await m.activity()).jobs).toEqual([]);
    expect(await m.observe(turn)).toMatchObject({ facts: { stored: 1 }, episodeScheduled: true });
    expect(llm.callsFor('extract')).toHaveLength(3);
  });

  it('observe, stage 2: the background episode write evicts the oldest unpinned episode and retries once', async () => {
    const llm = scriptedLLM({ extract: { output: { facts: [], hasEpisode: true } }, episode: episodeDraft() });
    const m = await open({ llm: llm.provider, capture: { cooldownTurns: 0, cooldownMinutes: 0 } });
    const events: EpisodeEvent[] = [];
    m.on('episode', (e) => events.push(e));
    let failOnce = 1;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (this.name === 'episodes' && failOnce > 0) {
        failOnce--;
        refusals++;
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      }
      return realPut.apply(this, args);
    } as IDBObjectStore['put'];
    expect((await m.observe({ user: 'We chose DuckDB for analytics.', assistant: 'Good choice.' })).episodeScheduled).toBe(true);
    await m.idle();
    diskHasRoom();
    expect(refusals).toBe(1);
    expect(events).toEqual([expect.objectContaining({ outcome: 'stored' })]);
    const ids = (await m.episodes.list()).map((e) => e.id);
    expect(ids).toHaveLength(1);
    expect(ids).not.toContain('e-old');
    const evictions = (await m.activity()).events.filter((e) => e.type === 'eviction');
    expect(evictions).toEqual([expect.objectContaining({ data: expect.objectContaining({ evicted: ['e-old'], reason: 'quota' }) })]);
    const lines = (await snapshot(m)).map((l) => JSON.parse(l) as { kind: string; id?: string; record?: { id: string; status?: string } });
    expect(lines.filter((l) => l.kind === 'vector').map((l) => l.id).sort()).toEqual(lines.filter((l) => l.kind === 'episode' || (l.kind === 'fact' && l.record!.status === 'current')).map((l) => l.record!.id).sort());
  });
});
