import { describe, expect, it } from 'vitest';
import { scriptedLLM } from '../support/scripted-llm.js';
import { tableEmbedder } from '../support/table-embedder.js';
import { memoryFixture } from '../support/memory-fixture.js';

const { open } = memoryFixture();
const turn = { userId: 'u', user: 'some message', assistant: 'some reply' };
const extractOne = (text: string, category = 'profile', importance = 0.8) => ({ output: { facts: [{ text, category, importance }], hasEpisode: false } });

describe('merge-on-write', () => {
  it('auto-updates at or above 0.85 without any same-fact or compose call', async () => {
    const emb = await tableEmbedder();
    emb.set('The user lives in Lyon.', emb.axis());
    emb.set('The user lives in Lyon, France.', emb.at(0.9));
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', extractOne('The user lives in Lyon.'), extractOne('The user lives in Lyon, France.'));
    const m = await open({ embedder: emb, llm: llm.provider });
    await m.observe(turn);
    const result = await m.observe(turn);
    expect(result.facts).toEqual({ stored: 0, replaced: 1, skipped: 0 });
    expect(llm.callsFor('same-fact')).toHaveLength(0);
    expect(llm.callsFor('compose')).toHaveLength(0);
    expect((await m.facts.list({ userId: 'u' })).map((f) => f.text)).toEqual(['The user lives in Lyon, France.']);
  });

  it('asks same-fact once per neighbour ≥ 0.60, best first, stopping at the first match; never below 0.60', async () => {
    const emb = await tableEmbedder();
    emb.set('Fact A', emb.at(0.75, 1));
    emb.set('Fact B', emb.at(0.7, 2));
    emb.set('Fact C', emb.at(0.65, 3));
    emb.set('Fact D', emb.at(0.5, 4));
    emb.set('The new statement', emb.axis());
    const llm = scriptedLLM({ profile: { output: { updates: {} } }, compose: { output: { text: 'Composed statement.' } } });
    const m = await open({ embedder: emb, llm: llm.provider });
    for (const text of ['Fact A', 'Fact B', 'Fact C', 'Fact D']) await m.facts.add({ userId: 'u', text, category: 'profile' });
    llm.enqueue('extract', extractOne('The new statement'));
    llm.enqueue('same-fact', { output: { same: false } }, { output: { same: true } });
    const result = await m.observe(turn);
    const asked = llm.callsFor('same-fact').map((c) => c.input.split('\n')[0]);
    expect(asked).toEqual(['EXISTING: Fact A', 'EXISTING: Fact B']);
    expect(result.facts.replaced).toBe(1);
    const texts = (await m.facts.list({ userId: 'u' })).map((f) => f.text).sort();
    expect(texts).toEqual(['Composed statement.', 'Fact A', 'Fact C', 'Fact D']);

    // Only a neighbour under 0.60: no check at all, the fact is created.
    const m2 = await open({ embedder: emb, llm: llm.provider });
    await m2.facts.add({ userId: 'u', text: 'Fact D', category: 'profile' });
    const before = llm.callsFor('same-fact').length;
    llm.enqueue('extract', extractOne('The new statement'));
    expect((await m2.observe(turn)).facts.stored).toBe(1);
    expect(llm.callsFor('same-fact')).toHaveLength(before);
  });

  it('recreate: a contradiction leaves one current fact and an auditable history', async () => {
    const emb = await tableEmbedder();
    emb.set('The user lives in Lyon.', emb.axis());
    emb.set('The user moved from Lyon to Porto.', emb.at(0.7));
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', extractOne('The user lives in Lyon.'), extractOne('The user moved from Lyon to Porto.'));
    llm.enqueue('same-fact', { output: { same: true } });
    llm.enqueue('compose', { output: { text: 'The user lives in Porto (moved from Lyon).' } });
    const m = await open({ embedder: emb, llm: llm.provider });
    await m.observe(turn);
    await m.observe(turn);
    const current = await m.facts.list({ userId: 'u' });
    expect(current.map((f) => f.text)).toEqual(['The user lives in Porto (moved from Lyon).']);
    const history = await m.facts.history(current[0]!.id);
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({ text: 'The user lives in Lyon.', status: 'retired', supersededBy: current[0]!.id });
    expect(history[0]!.validUntil).toBeGreaterThanOrEqual(history[0]!.validFrom);
    expect(history[1]).toMatchObject({ status: 'current', validUntil: null, supersededBy: null });
    expect((await m.recall('Lyon', { userId: 'u' })).map((h) => h.memory.id)).toEqual([current[0]!.id]);
    expect(await m.facts.list({ userId: 'u', includeRetired: true })).toHaveLength(2);
  });

  it('compose falls back to the newer statement when the call fails', async () => {
    const emb = await tableEmbedder();
    emb.set('The user drinks coffee.', emb.axis());
    emb.set('The user switched to green tea.', emb.at(0.7));
    const llm = scriptedLLM({ profile: { output: { updates: {} } }, compose: new Error('HTTP 500') });
    llm.enqueue('extract', extractOne('The user drinks coffee.', 'preference'), extractOne('The user switched to green tea.', 'preference'));
    llm.enqueue('same-fact', { output: { same: true } });
    const m = await open({ embedder: emb, llm: llm.provider });
    await m.observe(turn);
    await m.observe(turn);
    expect((await m.facts.list({ userId: 'u' })).map((f) => f.text)).toEqual(['The user switched to green tea.']);
  });

  it('update mode rewrites in place and keeps the previous version in history', async () => {
    const emb = await tableEmbedder();
    emb.set('The user is learning Spanish.', emb.axis());
    emb.set('The user is now fluent in Spanish.', emb.at(0.9));
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue('extract', extractOne('The user is learning Spanish.', 'skill'), extractOne('The user is now fluent in Spanish.', 'skill'));
    const m = await open({ embedder: emb, llm: llm.provider, facts: { mergeMode: 'update' } });
    await m.observe(turn);
    const [original] = await m.facts.list({ userId: 'u' });
    await m.observe(turn);
    const [updated] = await m.facts.list({ userId: 'u' });
    expect(updated!.id).toBe(original!.id);
    expect(updated!.text).toBe('The user is now fluent in Spanish.');
    const history = await m.facts.history(original!.id);
    expect(history.map((f) => f.text)).toEqual(['The user is learning Spanish.', 'The user is now fluent in Spanish.']);
    expect(history[0]).toMatchObject({ status: 'retired', supersededBy: original!.id });
  });

  it('drops facts under the importance floor unless they update an existing fact', async () => {
    const emb = await tableEmbedder();
    emb.set('The user likes jazz.', emb.axis());
    emb.set('The user likes smooth jazz.', emb.at(0.95));
    emb.set('The user owns a blue pen.', emb.at(0.0, 5));
    const llm = scriptedLLM({ profile: { output: { updates: {} } } });
    llm.enqueue(
      'extract',
      { output: { facts: [{ text: 'The user owns a blue pen.', category: 'other', importance: 0.1 }, { text: 'The user likes jazz.', category: 'preference', importance: 0.9 }], hasEpisode: false } },
      extractOne('The user likes smooth jazz.', 'preference', 0.1),
    );
    const m = await open({ embedder: emb, llm: llm.provider });
    expect((await m.observe(turn)).facts).toEqual({ stored: 1, replaced: 0, skipped: 1 });
    expect((await m.observe(turn)).facts).toEqual({ stored: 0, replaced: 1, skipped: 0 });
    expect((await m.facts.list({ userId: 'u' })).map((f) => f.text)).toEqual(['The user likes smooth jazz.']);
  });
});

describe('profile', () => {
  it('applies valid proposals, ignores invalid ones, and renders a profile line', async () => {
    const llm = scriptedLLM();
    llm.enqueue('extract', extractOne('The user lives in Porto.'));
    llm.enqueue('profile', { output: { updates: { city: 'Porto', timeZone: 'Not/AZone', name: 'Ana', goals: 'not a list', favouriteColour: 'blue' } } });
    const m = await open({ llm: llm.provider });
    await m.observe(turn);
    const profile = await m.profile.get('u');
    expect(profile).toMatchObject({ userId: 'u', city: 'Porto', name: 'Ana', goals: [] });
    expect(profile.timeZone).toBeUndefined();
    expect(llm.callsFor('profile')[0]!.input).toContain('The user lives in Porto.');
    await m.profile.update('u', { timeZone: 'Europe/Lisbon', goals: ['run a marathon'] });
    expect(await m.profileLine('u')).toBe('Profile: Ana; city Porto; time zone Europe/Lisbon; goals: run a marathon');
    await expect(m.profile.update('u', { timeZone: 'Mars/Base' })).rejects.toThrow(/IANA/);
    const hits = await m.recall('where does the user live', { userId: 'u' });
    expect(m.formatContext(hits, { profileLine: await m.profileLine('u'), timeZone: 'UTC', now: 0 }).split('\n')[1]).toMatch(/^Profile: Ana/);
  });

  it('without an LLM the app keeps the profile itself', async () => {
    const m = await open({});
    expect(await m.profileLine('x')).toBe('');
    await m.profile.update('x', { preferredTone: 'concise' });
    expect((await m.profile.get('x')).preferredTone).toBe('concise');
  });
});

describe('hybrid rerank', () => {
  it('reports every part, and pinned never ranks below unpinned of equal similarity', async () => {
    const m = await open({});
    const a = await m.facts.add({ text: 'The user enjoys hiking in the Alps' });
    const b = await m.facts.add({ text: 'The user enjoys hiking in the Alps', id: 'pinned-twin', pinned: true });
    const hits = await m.recall('hiking in the Alps');
    expect(hits.map((h) => h.memory.id)).toEqual([b.id, a.id]);
    expect(hits[0]!.parts).toMatchObject({ pinned: 1, source: 1, importance: 0.5 });
    expect(hits[1]!.parts.pinned).toBe(0);
    expect(hits[0]!.parts.similarity).toBeCloseTo(hits[1]!.parts.similarity, 5);
  });

  it('recency halves every half-life (injectable clock) and weights are configurable', async () => {
    let now = Date.UTC(2026, 0, 1);
    const m = await open({ clock: () => now, ranking: { halfLifeDays: 10, weights: { recency: 1 } } });
    await m.facts.add({ text: 'Old note about bread baking' });
    now += 10 * 86_400_000;
    const [hit] = await m.recall('bread baking');
    expect(hit!.parts.recency).toBeCloseTo(0.5, 5);
    now += 10 * 86_400_000;
    // The previous recall touched it (lastAccessedAt), so its age restarts from then.
    const [again] = await m.recall('bread baking');
    expect(again!.parts.recency).toBeCloseTo(0.5, 5);
    // relevance + the boost floor (0.1) + importance 0.5 × 0.05 + recency 0.5 × 1.
    expect(again!.score).toBeCloseTo(again!.parts.relevance + 0.1 + 0.05 * 0.5 + 1 * 0.5, 5);
  });

  it('a recent memory outranks an equally relevant old one when recency is weighted', async () => {
    let now = Date.UTC(2026, 0, 1);
    const m = await open({ clock: () => now, ranking: { weights: { recency: 0.5 } } });
    const old = await m.facts.add({ text: 'The user is training for a marathon' });
    now += 90 * 86_400_000;
    const fresh = await m.facts.add({ text: 'The user is training for a marathon', id: 'fresh' });
    expect((await m.recall('marathon training')).map((h) => h.memory.id)).toEqual([fresh.id, old.id]);
  });
});
