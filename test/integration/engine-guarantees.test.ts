import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { ClosedError, type LLMProvider } from '../../src/index.js';
import { freshIndexedDB, snapshot } from '../support/memory.js';
import { scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Issue 20's engine-side breaks, each reproduced as an outsider found it:
 * close() while an LLM call runs (4), a provider that throws a hostile
 * object (4), dedup behind a stale index entry (5), and facts.add merging a
 * near-identical fact (8).
 */
const { open: memory } = memoryFixture();

/** A provider that never answers and ignores its AbortSignal (as an outsider's did); `called` resolves once it has been called. */
function deafProvider(): { provider: LLMProvider; called: Promise<void> } {
  let calledNow!: () => void;
  const called = new Promise<void>((resolve) => (calledNow = resolve));
  return {
    provider: () => {
      calledNow();
      return new Promise(() => undefined);
    },
    called,
  };
}

describe('close() while an LLM call runs (issue 20.4)', () => {
  it('close({ timeoutMs: 0 }) during stage 1: observe rejects with a ClosedError or resolves, never an untyped error, and writes nothing', async () => {
    const shared = { name: `closing-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
    const deaf = deafProvider();
    const m = await memory({ ...shared, llm: deaf.provider });
    await m.facts.add({ id: 'f1', text: 'The user grows tomatoes' });
    const before = await snapshot(m);
    const turn = m.observe({ user: 'I moved to Porto', assistant: 'Noted!' });
    // Stage 1 is running: its provider call has started.
    await deaf.called;
    await m.close({ timeoutMs: 0 });
    const outcome = await turn.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    if ('error' in outcome) expect(outcome.error).toBeInstanceOf(ClosedError);
    else expect(outcome.result.facts.stored).toBe(0);
    // Reopen the same database: exactly what was there before the turn.
    const reopened = await memory(shared);
    expect(await snapshot(reopened)).toEqual(before);
  });

  it('with the default deadline, a provider that ignores its signal does not hold close() or the turn: observe resolves with a reason', async () => {
    const deaf = deafProvider();
    const m = await memory({ llm: deaf.provider, extraction: { timeoutMs: 600_000 } });
    const turn = m.observe({ user: 'I moved to Porto', assistant: 'Noted!' });
    await deaf.called;
    await m.close();
    const result = await turn;
    expect(result).toMatchObject({ facts: { stored: 0 }, episodeScheduled: false, reason: 'stage1_provider_error' });
  });

  it('a provider that throws an object whose properties throw: observe resolves with a reason', async () => {
    const hostile = {
      get message(): string {
        throw new Error('gotcha');
      },
      toString(): string {
        throw new Error('gotcha again');
      },
    };
    const m = await memory({ llm: () => Promise.reject(hostile) });
    const result = await m.observe({ user: 'I moved to Porto', assistant: 'Noted!' });
    expect(result).toMatchObject({ facts: { stored: 0 }, reason: 'stage1_provider_error' });
    const replyWithThrowingGetter = await memory({
      llm: async () =>
        ({
          get output(): unknown {
            throw hostile;
          },
        }) as never,
    });
    expect(await replyWithThrowingGetter.observe({ user: 'I moved to Porto', assistant: 'Noted!' })).toMatchObject({ reason: 'stage1_provider_error' });
  });
});

describe('dedup behind a stale index entry (issue 20.5)', () => {
  it('an identical trusted episode replaces its live duplicate even when the nearest entry in the index was deleted elsewhere', async () => {
    const shared = { name: `stale-${process.pid}-${Math.random().toString(36).slice(2)}`, ...freshIndexedDB() };
    const m = await memory(shared);
    const text = 'Migrated the billing service from MySQL to Postgres over the weekend';
    // cosine 0.985 to `text` with the offline model: a duplicate (≥ 0.92), but not as near as 'stale' (1.0).
    await m.episodes.add({ id: 'live', text: `${text} with the team` });
    // Stored beside it: an untrusted episode never replaces a trusted one.
    await m.episodes.add({ id: 'stale', text, provenance: 'untrusted' });
    expect((await m.episodes.list()).map((e) => e.id).sort()).toEqual(['live', 'stale']);
    // Another writer deletes 'stale' without a signal this engine hears: its index entry is now stale.
    const raw = new Dexie(shared.name, { indexedDB: shared.indexedDB, IDBKeyRange: shared.IDBKeyRange });
    await raw.open();
    await raw.table('episodes').delete('stale');
    raw.close();
    const { replaced } = await m.episodes.add({ id: 'new', text }).then(async (e) => ({ e, replaced: (await m.episodes.list()).map((x) => x.id).sort() }));
    expect(replaced).toEqual(['new']);
  });
});

describe('facts.add merges a near-identical fact (issue 20.8)', () => {
  it('"The user lives in Lyon" then "The user lives in Lyon." leaves one current fact, with the first in its history', async () => {
    const m = await memory();
    const first = await m.facts.add({ text: 'The user lives in Lyon', tags: ['home'] });
    const second = await m.facts.add({ text: 'The user lives in Lyon.', metadata: { source: 'form' } });
    const current = await m.facts.list();
    expect(current.map((f) => f.id)).toEqual([second.id]);
    expect(second).toMatchObject({ text: 'The user lives in Lyon.', tags: ['home'], metadata: { source: 'form' }, status: 'current' });
    expect((await m.facts.history(second.id)).map((f) => [f.id, f.status])).toEqual([
      [first.id, 'retired'],
      [second.id, 'current'],
    ]);
    expect((await m.recall('Lyon')).map((h) => h.memory.id)).toEqual([second.id]);
  });

  it('merge: false inserts as given; addMany inserts as given unless merge: true; an app-chosen id is never merged away', async () => {
    const m = await memory();
    await m.facts.add({ text: 'The user lives in Lyon' });
    await m.facts.add({ text: 'The user lives in Lyon.' }, { merge: false });
    expect(await m.facts.list()).toHaveLength(2);
    await m.facts.addMany([{ text: 'The user lives in Lyon!' }]);
    expect(await m.facts.list()).toHaveLength(3);
    await m.facts.add({ id: 'mine', text: 'The user lives in Lyon' });
    expect((await m.facts.list()).map((f) => f.id)).toContain('mine');
    const merged = await m.facts.addMany([{ text: 'The user lives in Lyon' }], { merge: true });
    expect(await m.facts.list()).toHaveLength(4);
    expect((await m.facts.history(merged[0]!.id)).length).toBe(2);
  });

  it('between checkFrom and autoUpdateAt, the LLM same-fact check decides (every call checked)', async () => {
    const llm = scriptedLLM({ 'same-fact': { output: { same: true } }, compose: { output: { text: 'The user works as a nurse in Lyon.' } } });
    const m = await memory({ llm: llm.provider, facts: { autoUpdateAt: 0.999, checkFrom: 0.3 } });
    await m.facts.add({ text: 'The user is a nurse', category: 'profile' });
    const merged = await m.facts.add({ text: 'The user works as a nurse in Lyon', category: 'profile' });
    expect(llm.calls.map((c) => c.task)).toEqual(['same-fact', 'compose']);
    expect(merged.text).toBe('The user works as a nurse in Lyon.');
    expect((await m.facts.list()).map((f) => f.id)).toEqual([merged.id]);
  });
});
