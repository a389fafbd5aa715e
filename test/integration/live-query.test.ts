import { describe, expect, it, vi } from 'vitest';
import { ValidationError, type LiveSnapshot, type Memory } from '../../src/index.js';
import { freshIndexedDB } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * memory.live(query): a query that re-runs when a committed change touches
 * its user, in this engine or another on the same database (two tabs), and
 * fits React's useSyncExternalStore, Svelte stores and Observables.
 */
const memories = memoryFixture();

async function twoEngines(): Promise<[Memory, Memory]> {
  const shared = { name: `live-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
  const a = await memories.open(shared);
  const b = await memories.open(shared);
  return [a, b];
}

/** Resolves with the first snapshot that satisfies `check` (subscribing as a Svelte store would). */
function until<T>(live: { subscribe(listener: (value: LiveSnapshot<T>) => void): () => void }, check: (value: LiveSnapshot<T>) => boolean): Promise<LiveSnapshot<T>> {
  return new Promise((resolve) => {
    let stop: (() => void) | undefined;
    let done = false;
    stop = live.subscribe((value) => {
      if (done || !check(value)) return;
      done = true;
      queueMicrotask(() => stop?.());
      resolve(value);
    });
  });
}

describe('memory.live()', () => {
  it('facts.list stays current with writes in this engine and another, for its user only', async () => {
    const [a, b] = await twoEngines();
    const live = a.live({ facts: { userId: 'ana' } });
    const seen: LiveSnapshot<unknown>[] = [];
    const stop = live.subscribe((value) => seen.push(value));
    // A Svelte store: the current value at once.
    expect(seen[0]).toEqual({ data: undefined, error: undefined, loading: true });
    await until(live, (s) => !s.loading && Array.isArray(s.data));
    expect(live.getSnapshot().data).toEqual([]);

    await a.facts.add({ userId: 'ana', text: 'Ana lives in Porto' });
    await until(live, (s) => !s.loading && s.data?.length === 1);
    // Another engine on the same database (another tab): heard through the cross-tab signal.
    await b.facts.add({ userId: 'ana', text: 'Ana plays the cello' });
    const after = await until(live, (s) => !s.loading && s.data?.length === 2);
    expect(after.data!.map((f) => f.text).sort()).toEqual(['Ana lives in Porto', 'Ana plays the cello']);

    // Another user's write does not re-run it, and the snapshot keeps its identity (React's rule).
    const runsBefore = seen.length;
    const snapshot = live.getSnapshot();
    await b.facts.add({ userId: 'bob', text: 'Bob plays chess' });
    await a.facts.add({ userId: 'bob', text: 'Bob plays go' });
    await a.idle();
    expect(seen.length).toBe(runsBefore);
    expect(live.getSnapshot()).toBe(snapshot);

    // After the last subscriber leaves, writes no longer run it.
    stop();
    await a.facts.add({ userId: 'ana', text: 'Ana drinks green tea' });
    await a.idle();
    expect(seen.length).toBe(runsBefore);
  });

  it('recall, episodes and tasks; Observable interop; a bad query is a ValidationError at once', async () => {
    const [a, b] = await twoEngines();
    const recall = a.live({ recall: 'where does the user live?', options: { k: 3 } });
    const observable = (recall as unknown as Record<symbol, () => typeof recall>)[Symbol.for('observable')]!();
    // RxJS's from() looks the interop point up as '@@observable' where no Symbol.observable polyfill exists.
    expect((recall as unknown as Record<string, () => unknown>)['@@observable']!()).toBe(recall);
    const values: LiveSnapshot<unknown>[] = [];
    const subscription = observable.subscribe({ next: (v) => values.push(v) });
    await a.facts.add({ text: 'The user lives in Porto' });
    const hit = await until(recall, (s) => !s.loading && (s.data?.length ?? 0) > 0);
    expect(hit.data![0]!.memory.text).toBe('The user lives in Porto');
    subscription.unsubscribe();
    // The live recall did not touch the memory it found.
    const [fact] = await a.facts.list();
    expect(fact!.lastAccessedAt).toBe(fact!.createdAt);

    const episodes = a.live({ episodes: { userId: 'default' } });
    const waitEpisode = until(episodes, (s) => !s.loading && s.data?.length === 1);
    await a.episodes.add({ text: 'Moved the garden shed' });
    expect((await waitEpisode).data![0]!.text).toBe('Moved the garden shed');

    const tasks = a.live({ tasks: {} });
    const waitTask = until(tasks, (s) => !s.loading && s.data?.length === 1);
    await a.tasks.start({ description: 'Fix the login form', type: 'debugging', context: { complexity: 'simple', domain: 'web', tags: [] } });
    expect((await waitTask).data![0]!.description).toBe('Fix the login form');

    // A turn observe() keeps (no LLM) reaches a live list of the session's turns in another engine.
    const turns = b.live({ turns: { sessionId: 's9', order: 'asc' } });
    const waitTurns = until(turns, (s) => !s.loading && s.data?.length === 2);
    await a.observe({ sessionId: 's9', user: 'Is the shed dry?', assistant: 'Yes, since the new roof.' });
    expect((await waitTurns).data!.map((t) => t.speaker)).toEqual(['user', 'assistant']);

    expect(() => a.live({ recall: '' } as never)).toThrow(ValidationError);
    expect(() => a.live({ facts: { userId: 'a' }, episodes: {} } as never)).toThrow(ValidationError);
  });

  it('emits only when its answer changes: one loading snapshot, no flip on writes that leave it as it was', async () => {
    const [a] = await twoEngines();
    await a.facts.add({ userId: 'ana', text: 'Ana lives in Porto', tags: ['home'] });
    const list = vi.spyOn(a.facts, 'list');
    const live = a.live({ facts: { userId: 'ana', tags: ['home'], order: 'asc' } });
    const seen: LiveSnapshot<{ text: string }[]>[] = [];
    live.subscribe((value) => seen.push(value));
    await vi.waitFor(() => expect(seen.at(-1)?.loading).toBe(false));
    // The first subscription hears "loading" once, then the answer.
    expect(seen.map((s) => [s.loading, s.data?.map((f) => f.text)])).toEqual([
      [true, undefined],
      [false, ['Ana lives in Porto']],
    ]);
    const answer = live.getSnapshot();

    // Writes by the same user that leave the answer as it was: a fact without the tag (re-run, same list),
    // an episode and a conversation turn (another table: not re-run at all). Nothing is emitted.
    await a.facts.add({ userId: 'ana', text: 'Ana plays the cello' });
    await vi.waitFor(() => expect(list).toHaveBeenCalledTimes(2));
    await list.mock.results[1]!.value;
    await a.episodes.add({ userId: 'ana', text: 'Ana tuned the cello' });
    await a.turns.add({ userId: 'ana', sessionId: 's1', speaker: 'user', text: 'My cello is tuned' });
    await a.idle();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(list).toHaveBeenCalledTimes(2);
    expect(seen).toHaveLength(2);
    expect(live.getSnapshot()).toBe(answer);

    // A write that changes the answer: one new snapshot, no loading flip before it; unchanged records keep their identity (by position, as TanStack Query's structural sharing).
    await a.facts.add({ userId: 'ana', text: 'Ana rents a flat by the river', tags: ['home'] });
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen[2]!.loading).toBe(false);
    expect(seen[2]!.data!.map((f) => f.text).sort()).toEqual(['Ana lives in Porto', 'Ana rents a flat by the river']);
    expect(seen[2]!.data!.find((f) => f.text === 'Ana lives in Porto')).toBe(answer.data![0]);
  });

  it('subscribe refuses a listener that is neither a function nor an observer, and stays unsubscribed', async () => {
    const [a] = await twoEngines();
    const live = a.live({ facts: { userId: 'ana' } });
    const list = vi.spyOn(a.facts, 'list');
    const errors = vi.spyOn(console, 'error');
    const throwing = { get next(): never { throw new Error('boom'); } };
    for (const bad of [42, 'next', null, undefined, { next: 'not a function' }, { next() {}, error: 1 }, throwing]) {
      expect(() => live.subscribe(bad as never)).toThrow(ValidationError);
    }
    await a.facts.add({ userId: 'ana', text: 'Ana lives in Porto' });
    await a.idle();
    expect(list).not.toHaveBeenCalled();
    expect(live.getSnapshot()).toEqual({ data: undefined, error: undefined, loading: false });
    expect(errors).not.toHaveBeenCalled();
    // An observer is called as a method (RxJS subscribers read `this`).
    const observer = { texts: [] as string[][], next(this: { texts: string[][] }, value: LiveSnapshot<{ text: string }[]>) { if (value.data) this.texts.push(value.data.map((f) => f.text)); } };
    const stop = live.subscribe(observer);
    await vi.waitFor(() => expect(observer.texts).toEqual([['Ana lives in Porto']]));
    stop.unsubscribe();
    errors.mockRestore();
  });
});
