import { describe, expect, it } from 'vitest';
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
});
