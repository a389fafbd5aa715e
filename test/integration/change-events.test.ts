import { describe, expect, it } from 'vitest';
import type { ChangeEvent, Memory } from '../../src/index.js';
import { openMemory } from '../support/memory.js';
import { episodeDraft, scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * The one commit path (issue 14): every write method of the public API emits
 * exactly one `change` event, after it committed, naming the rows it wrote
 * and deleted, their users and tables. Nothing that only reads emits one, and
 * a refused write emits none. (profile.update, profile sync and
 * episodes.close used to emit nothing.)
 */
const memories = memoryFixture();

async function setup(options: Parameters<typeof openMemory>[0] = {}) {
  const memory = await memories.open(options);
  const changes: ChangeEvent[] = [];
  memory.on('change', (event) => changes.push(event));
  /** Runs a call and returns the change events it caused (waiting for background work first). */
  const during = async (call: () => Promise<unknown>): Promise<ChangeEvent[]> => {
    await memory.idle();
    changes.length = 0;
    await call();
    return changes.splice(0);
  };
  return { memory, changes, during };
}

describe('every public write emits exactly one change with what it wrote', () => {
  it('facts: add, addMany, update, delete', async () => {
    const { memory, during } = await setup();
    expect(await during(() => memory.facts.add({ id: 'f1', userId: 'ana', text: 'Ana lives in Porto' }))).toEqual([
      { type: 'change', written: ['f1'], deleted: [], userIds: ['ana'], tables: ['facts'] },
    ]);
    const many = await during(() => memory.facts.addMany([{ id: 'f2', text: 'Likes jazz' }, { id: 'f3', text: 'Plays the piano' }]));
    expect(many).toHaveLength(1);
    expect(many[0]).toMatchObject({ userIds: ['default'], tables: ['facts'], deleted: [] });
    expect([...many[0]!.written].sort()).toEqual(['f2', 'f3']);
    expect(await during(() => memory.facts.update('f1', { importance: 0.9 }))).toEqual([
      { type: 'change', written: ['f1'], deleted: [], userIds: ['ana'], tables: ['facts'] },
    ]);
    expect(await during(() => memory.facts.delete('f1'))).toEqual([{ type: 'change', written: [], deleted: ['f1'], userIds: ['ana'], tables: ['facts'] }]);
  });

  it('episodes: add (with a dedup replacement and an eviction), update, close, delete', async () => {
    const { memory, during } = await setup({ lifecycle: { maxEpisodes: 2 } });
    expect(await during(() => memory.episodes.add({ id: 'e1', text: 'Planted tomatoes in the garden' }))).toEqual([
      { type: 'change', written: ['e1'], deleted: [], userIds: ['default'], tables: ['episodes'] },
    ]);
    await memory.episodes.add({ id: 'e2', text: 'Fixed the bicycle brakes before the trip' });
    // The same text again replaces e1 (dedup); a third distinct one then evicts the oldest by the cap of 2.
    const replaced = await during(() => memory.episodes.add({ id: 'e3', text: 'Planted tomatoes in the garden' }));
    expect(replaced).toEqual([{ type: 'change', written: ['e3'], deleted: ['e1'], userIds: ['default'], tables: ['episodes'] }]);
    const evicting = await during(() => memory.episodes.add({ id: 'e4', text: 'Wrote the quarterly tax report' }));
    expect(evicting).toEqual([{ type: 'change', written: ['e4'], deleted: ['e2'], userIds: ['default'], tables: ['episodes'] }]);
    expect(await during(() => memory.episodes.update('e4', { tags: ['taxes'] }))).toEqual([
      { type: 'change', written: ['e4'], deleted: [], userIds: ['default'], tables: ['episodes'] },
    ]);
    expect(await during(() => memory.episodes.close('e4'))).toEqual([{ type: 'change', written: ['e4'], deleted: [], userIds: ['default'], tables: ['episodes'] }]);
    expect(await during(() => memory.episodes.delete('e3'))).toEqual([{ type: 'change', written: [], deleted: ['e3'], userIds: ['default'], tables: ['episodes'] }]);
  });

  it('profile.update, and the profile sync of an observed turn (in the turn\'s one change)', async () => {
    const llm = scriptedLLM({ profile: { output: { updates: { city: 'Porto' } } } });
    llm.enqueue('extract', { output: { facts: [{ text: 'The user lives in Porto.', category: 'profile', importance: 0.9 }], hasEpisode: false } });
    const { memory, during } = await setup({ llm: llm.provider });
    expect(await during(() => memory.profile.update('ana', { name: 'Ana' }))).toEqual([
      { type: 'change', written: ['ana'], deleted: [], userIds: ['ana'], tables: ['profiles'] },
    ]);
    const turn = await during(() => memory.observe({ userId: 'ana', user: 'I moved to Porto', assistant: 'Noted!' }));
    expect(turn).toHaveLength(1);
    const [fact] = await memory.facts.list({ userId: 'ana' });
    expect(turn[0]).toEqual({ type: 'change', written: [fact!.id, 'ana'], deleted: [], userIds: ['ana'], tables: ['facts', 'profiles'] });
    expect((await memory.profile.get('ana')).city).toBe('Porto');
    // Every call was one this test scripted: stage 1, then the profile proposal.
    expect(llm.calls.map((c) => c.task)).toEqual(['extract', 'profile']);
  });

  it('the stage-2 episode an observed turn schedules arrives as its own change', async () => {
    const llm = scriptedLLM({ episode: episodeDraft() });
    llm.enqueue('extract', { output: { facts: [], hasEpisode: true } });
    const { memory, changes } = await setup({ llm: llm.provider });
    await memory.observe({ user: 'We compared Postgres and DuckDB', assistant: 'DuckDB won on scans' });
    expect(changes).toEqual([]); // no fact, nothing the app can read changed yet
    await memory.idle();
    const [episode] = await memory.episodes.list();
    expect(changes).toEqual([{ type: 'change', written: [episode!.id], deleted: [], userIds: ['default'], tables: ['episodes'] }]);
    expect(llm.calls.map((c) => c.task)).toEqual(['extract', 'episode']);
  });

  it('tasks: start, flush of logged steps, complete', async () => {
    const { memory, during } = await setup();
    let task!: Awaited<ReturnType<Memory['tasks']['start']>>;
    const started = await during(async () => {
      task = await memory.tasks.start({ description: 'Fix the login form', type: 'debugging', context: { complexity: 'simple', domain: 'web', tags: [] } });
    });
    expect(started).toEqual([{ type: 'change', written: [task.id], deleted: [], userIds: ['default'], tables: ['tasks'] }]);
    task.log({ tool: 'edit_file', action: 'edit', parameters: {}, result: { kind: 'success', output: 'ok' }, latencyMs: 5 });
    task.log({ tool: 'run_tests', action: 'run', parameters: {}, result: { kind: 'success', output: 'green' }, latencyMs: 9 });
    const flushed = await during(() => task.flush());
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toMatchObject({ deleted: [], userIds: ['default'] });
    expect([...flushed[0]!.written].sort()).toEqual([`${task.id}`, `${task.id}#1`, `${task.id}#2`].sort());
    expect([...flushed[0]!.tables].sort()).toEqual(['steps', 'tasks']);
    const done = await during(() => task.complete({ kind: 'success', verdict: 'fixed', artifacts: [] }));
    expect(done).toHaveLength(1);
    expect(done[0]!.written).toContain(task.id);
    expect(done[0]!.tables).toContain('tasks');
    // The completed task is findable at once: the commit path indexed it.
    expect((await memory.tasks.relevant({ description: 'login form bug' })).map((r) => r.task.id)).toEqual([task.id]);
  });

  it('prune, forget and import', async () => {
    const { memory, during } = await setup({ lifecycle: { ttlDays: 1 } });
    const old = Date.now() - 3 * 86_400_000;
    await memory.episodes.add({ id: 'old', text: 'A trip to Lisbon long ago', createdAt: old, startedAt: old, endedAt: old });
    expect(await during(() => memory.prune())).toEqual([{ type: 'change', written: [], deleted: ['old'], userIds: ['default'], tables: ['episodes'] }]);

    await memory.facts.add({ id: 'b1', userId: 'bob', text: 'Bob plays chess' });
    await memory.profile.update('bob', { name: 'Bob' });
    const forgot = await during(() => memory.forget({ userId: 'bob' }));
    expect(forgot).toHaveLength(1);
    expect(forgot[0]).toMatchObject({ written: [], userIds: ['bob'] });
    expect([...forgot[0]!.deleted].sort()).toEqual(['b1', 'bob']);
    expect([...forgot[0]!.tables].sort()).toEqual(['facts', 'profiles']);

    const source = await memories.open();
    await source.facts.add({ id: 'i1', text: 'Imported fact about sailing' });
    const file = await source.export();
    const imported = await during(() => memory.import(file));
    expect(imported).toEqual([{ type: 'change', written: ['i1'], deleted: [], userIds: ['default'], tables: ['facts'] }]);
  });

  it('reads emit nothing, and neither does a refused write or the access times a recall records', async () => {
    let now = 1_800_000_000_000;
    const { memory, during } = await setup({ clock: () => now });
    await memory.facts.add({ id: 'f1', text: 'The user grows tomatoes' });
    now += 60_000;
    const reads = await during(async () => {
      await memory.recall('tomatoes');
      await memory.recall('tomatoes');
      await memory.facts.get('f1');
      await memory.facts.list();
      await memory.export();
      await memory.tasks.stats();
      await memory.idle();
    });
    expect(reads).toEqual([]);
    // The access was recorded all the same (quietly).
    expect(await memory.facts.get('f1')).toMatchObject({ createdAt: now - 60_000, lastAccessedAt: now });
    const refused = await during(() => memory.facts.update('missing', { importance: 0.2 }).catch(() => undefined));
    expect(refused).toEqual([]);
  });
});
