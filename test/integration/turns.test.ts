import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory as createNodeMemory } from '../../src/index.node.js';
import { NotFoundError, ValidationError, type ChangeEvent } from '../../src/index.js';
import { writeImageAtomically } from '../../src/store/durable/store-image.js';
import { freshIndexedDB, realEmbedder, snapshot } from '../support/memory.js';
import { noFacts, scriptedLLM } from '../support/scripted-llm.js';
import { memoryFixture } from '../support/memory-fixture.js';

const memories = memoryFixture();
const open = memories.open;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const exchange = {
  userId: 'ana',
  sessionId: 's1',
  user: 'My sister Inês is visiting from Coimbra next week, any restaurant ideas?',
  assistant: 'Try Cervejaria Ramiro for seafood; book ahead for Friday.',
};

describe('observe() without an LLM keeps the conversation', () => {
  it('stores the exchange as two turns in one commit, in the order they were said, and recall finds them', async () => {
    let clock = 1_800_000_000_000;
    const m = await open({ worker: false, clock: () => clock });
    const changes: ChangeEvent[] = [];
    m.on('change', (e) => changes.push(e));

    const result = await m.observe(exchange);
    expect(result).toMatchObject({ turns: { stored: 2 }, reason: 'no_llm', facts: { stored: 0 } });
    expect(changes).toHaveLength(1);
    expect(changes[0]!.tables.sort()).toEqual(['turns']);

    const listed = await m.turns.list({ userId: 'ana', order: 'asc' });
    expect(listed.map((t) => [t.speaker, t.text, t.sessionId, t.createdAt])).toEqual([
      ['user', exchange.user, 's1', clock],
      ['assistant', exchange.assistant, 's1', clock + 1],
    ]);
    clock += 60_000;
    const [top] = await m.recall('where could we eat seafood?', { userId: 'ana' });
    expect(top?.memory).toMatchObject({ type: 'turn', speaker: 'assistant', text: exchange.assistant });
    expect(m.formatContext([top!], { timeZone: 'UTC', now: clock })).toContain('- (2027-01-15, turn, assistant) Try Cervejaria Ramiro');
  });

  it('an empty side is left out; a side longer than a memory keeps its first 100,000 characters', async () => {
    const m = await open();
    expect((await m.observe({ userId: 'ana', user: '   ', assistant: 'Hello!' })).turns.stored).toBe(1);
    await m.observe({ userId: 'bo', user: 'a'.repeat(150_000), assistant: '' });
    const [long] = await m.turns.list({ userId: 'bo' });
    expect(long!.text).toHaveLength(100_000);
    // What observe() kept can be exported and imported again.
    const copy = await open();
    await copy.import(await m.export());
    expect(await snapshot(copy)).toEqual(await snapshot(m));
  });

  it("with an LLM, 'without-llm' keeps no turns and 'always' keeps them in the turn's one commit", async () => {
    const llm = scriptedLLM({ extract: noFacts() });
    const plain = await open({ llm: llm.provider });
    expect((await plain.observe(exchange)).turns.stored).toBe(0);
    expect(await plain.turns.list({ userId: 'ana' })).toEqual([]);

    const always = await open({ llm: llm.provider, turns: { keep: 'always' } });
    const changes: ChangeEvent[] = [];
    always.on('change', (e) => changes.push(e));
    expect((await always.observe(exchange)).turns.stored).toBe(2);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.tables).toContain('turns');
    expect(llm.callsFor('extract')).toHaveLength(2);

    const never = await open({ turns: { keep: 'never' } });
    expect((await never.observe(exchange)).turns.stored).toBe(0);
    expect(await never.turns.list({ userId: 'ana' })).toEqual([]);
  });

  it('an aborted observe keeps no turns', async () => {
    const m = await open();
    const controller = new AbortController();
    controller.abort(new Error('the user left'));
    await expect(m.observe(exchange, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await m.turns.list({ userId: 'ana' })).toEqual([]);
  });
});

describe('turns.add / addMany / get / list / delete', () => {
  it('adds a conversation the app already has, with speakers as a field, and lists it by session and speaker', async () => {
    const m = await open();
    const stored = await m.turns.addMany([
      { userId: 'u', sessionId: 'd1', speaker: 'Caroline', text: 'I went to an LGBTQ support group yesterday.', createdAt: 1_000 },
      { userId: 'u', sessionId: 'd1', speaker: 'Melanie', text: 'That sounds powerful. How did it go?', createdAt: 2_000 },
      { userId: 'u', sessionId: 'd2', speaker: 'Caroline', text: 'I am researching adoption agencies.', createdAt: 3_000 },
    ]);
    expect(stored.map((t) => t.type)).toEqual(['turn', 'turn', 'turn']);
    expect((await m.turns.list({ userId: 'u', sessionId: 'd1', order: 'asc' })).map((t) => t.speaker)).toEqual(['Caroline', 'Melanie']);
    expect((await m.turns.list({ userId: 'u', speaker: 'Caroline' })).map((t) => t.createdAt)).toEqual([3_000, 1_000]);
    expect(await m.turns.get(stored[1]!.id)).toEqual(stored[1]);

    const hits = await m.recall('adoption', { userId: 'u', types: ['turn'], filter: { speaker: 'Caroline' } });
    expect(hits[0]?.memory.id).toBe(stored[2]!.id);
    expect(await m.recall('adoption', { userId: 'u', types: ['fact'] })).toEqual([]);

    await m.turns.delete(stored[2]!.id);
    await expect(m.turns.get(stored[2]!.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await m.recall('adoption agencies', { userId: 'u' })).map((h) => h.memory.id)).not.toContain(stored[2]!.id);
  });

  it('refuses bad input with a typed error and writes nothing', async () => {
    const m = await open();
    await m.turns.add({ id: 't1', speaker: 'user', text: 'keep me' });
    const before = await snapshot(m);
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => m.turns.add({ speaker: '', text: 'x' }), /^turns\.add: speaker: must not be empty$/],
      [() => m.turns.add({ speaker: 'user', text: '  ' }), /text: must not be empty or whitespace only/],
      [() => m.turns.add({ speaker: 'a\u0007b', text: 'x' }), /speaker: must not contain control characters/],
      [() => m.turns.add({ speaker: 'user', text: 'x', role: 'user' } as never), /Unrecognized key: "role"/],
      [() => m.turns.addMany([{ speaker: 'user', text: 'ok' }, { speaker: 'user', text: 'ok', importance: 2 }]), /^turns\.addMany: 1\.importance: Too big/],
      [() => m.turns.addMany([{ id: 'same', speaker: 'user', text: 'a' }, { id: 'same', speaker: 'user', text: 'b' }]), /share an id/],
      [() => m.turns.add({ id: 't1', userId: 'someone-else', speaker: 'user', text: 'mine now' }), /belongs to another user/],
      [() => m.turns.list({ order: 'sideways' } as never), /order/],
    ];
    for (const [call, message] of cases) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(message);
    }
    await expect(m.turns.delete('missing')).rejects.toBeInstanceOf(NotFoundError);
    expect(await snapshot(m)).toEqual(before);
  });
});

describe('retention', () => {
  it('keeps at most maxPerUser unpinned turns per user, evicting the oldest in the same commit as the write', async () => {
    const m = await open({ turns: { maxPerUser: 3 } });
    await m.turns.add({ userId: 'u', speaker: 'user', text: 'pinned one', createdAt: 1, pinned: true });
    for (let i = 2; i <= 6; i++) await m.turns.add({ userId: 'u', speaker: 'user', text: `turn number ${i}`, createdAt: i });
    await m.turns.add({ userId: 'other', speaker: 'user', text: 'another user', createdAt: 1 });
    const kept = await m.turns.list({ userId: 'u', order: 'asc' });
    expect(kept.map((t) => t.text)).toEqual(['pinned one', 'turn number 4', 'turn number 5', 'turn number 6']);
    expect(await m.turns.list({ userId: 'other' })).toHaveLength(1);
    // The evicted turns left the index with their records.
    expect((await m.recall('turn number 2', { userId: 'u', k: 10 })).map((h) => h.memory.text)).not.toContain('turn number 2');
  });

  it('prune() applies ttlDays to turns; forget() deletes them', async () => {
    const day = 86_400_000;
    let now = 100 * day;
    const m = await open({ worker: false, clock: () => now, turns: { ttlDays: 30 } });
    await m.turns.add({ userId: 'u', speaker: 'user', text: 'old news', createdAt: now - 40 * day });
    await m.turns.add({ userId: 'u', speaker: 'user', text: 'recent news', createdAt: now - 10 * day });
    // The old one went with the write that brought it (retention runs in every turn write).
    expect((await m.turns.list({ userId: 'u' })).map((t) => t.text)).toEqual(['recent news']);
    now += 25 * day;
    const { evicted } = await m.prune({ userId: 'u' });
    expect(evicted).toHaveLength(1);
    expect(await m.turns.list({ userId: 'u' })).toEqual([]);

    await m.turns.add({ userId: 'v', speaker: 'user', text: 'forget me' });
    expect(await m.forget({ userId: 'v' })).toEqual({ episodes: 0, facts: 0, turns: 1 });
    expect(await m.turns.list({ userId: 'v' })).toEqual([]);
  });
});

describe('several engines and stores', () => {
  it('a turn written by one engine is recalled by another on the same database', async () => {
    const db = freshIndexedDB();
    const a = await open({ name: 'shared-turns', ...db });
    const b = await open({ name: 'shared-turns', ...db });
    const [turn] = await a.turns.addMany([{ speaker: 'user', text: 'The boiler makes a knocking noise at night' }]);
    await expect.poll(async () => (await b.recall('boiler noise')).map((h) => h.memory.id), { timeout: 5000 }).toContain(turn!.id);
  });

  it('a Node durable store written before turns existed (schema 4) opens, and keeps turns from then on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-turns-'));
    dirs.push(dir);
    const fact = {
      id: 'f-old', type: 'fact', userId: 'default', sessionId: null, text: 'The user grows tomatoes on the balcony', category: 'other', importance: 0.5,
      pinned: false, tags: [], source: 'manual', status: 'current', validFrom: 1, validUntil: null, supersededBy: null, metadata: {}, createdAt: 1, updatedAt: 1, lastAccessedAt: 1,
    };
    // The durable store's layout: <directory>/<encodeURIComponent(name)>/image.v8.
    mkdirSync(join(dir, 'old'), { recursive: true });
    writeImageAtomically(join(dir, 'old', 'image.v8'), { format: 1, version: 40, stores: { facts: [fact] } });
    const embedder = await realEmbedder();
    const m = memories.keep(await createNodeMemory({ name: 'old', directory: dir, embedder }));
    await m.turns.add({ speaker: 'user', text: 'The tomatoes need water every day in July' });
    expect((await m.recall('balcony tomatoes', { k: 5 })).map((h) => h.memory.type).sort()).toEqual(['fact', 'turn']);
    await m.close();
    const again = memories.keep(await createNodeMemory({ name: 'old', directory: dir, embedder }));
    expect(await again.turns.list()).toHaveLength(1);
    expect(await again.facts.list()).toHaveLength(1);
    await again.close();
  });
});


describe('context windows: a turn is found through the question it answers', () => {
  const conversation = [
    { sessionId: 's1', speaker: 'Ana', text: 'What does your cat like to eat?' },
    { sessionId: 's2', speaker: 'Ana', text: 'My cat sleeps all day on the sofa' },
    { sessionId: 's1', speaker: 'Bo', text: 'Tuna, mostly.' },
    { sessionId: 's1', speaker: 'Ana', text: 'Ha, mine is the same.' },
    { sessionId: 's2', speaker: 'Bo', text: 'We eat dinner at eight most days' },
    { sessionId: 's2', speaker: 'Ana', text: 'The cat food aisle is always empty' },
    { sessionId: 's3', speaker: 'Bo', text: 'I like to eat pasta on Fridays' },
  ];
  const query = 'what does the cat like to eat?';

  it('the answer joins the top k with the carried score, which parts.previousTurn shows; weight 0 turns it off', async () => {
    const on = await open();
    const stored = await on.turns.addMany(conversation.map((t) => ({ ...t, userId: 'u' })));
    expect(stored.map((t) => t.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const off = await open({ ranking: { previousTurnWeight: 0 } });
    await off.turns.addMany(conversation.map((t) => ({ ...t, userId: 'u' })));

    const without = await off.recall(query, { userId: 'u', k: 3 });
    expect(without.map((h) => h.memory.text)).not.toContain('Tuna, mostly.');
    expect(without.every((h) => h.parts.previousTurn === undefined)).toBe(true);

    const hits = await on.recall(query, { userId: 'u', k: 3 });
    const question = hits.find((h) => h.memory.text === 'What does your cat like to eat?')!;
    const answer = hits.find((h) => h.memory.text === 'Tuna, mostly.');
    expect(answer).toBeDefined();
    expect(answer!.parts.previousTurn).toBeCloseTo(0.85 * question.score, 12);
    expect(answer!.score).toBe(answer!.parts.previousTurn);
    // Best first, and the turn after the answer in its session was carried one step further, but not past the top 3.
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it('the turn carried is the next one of the same session (not the next one stored), and recall filters still apply', async () => {
    const m = await open({ clock: () => 1_800_000_000_000 });
    await m.turns.addMany(conversation.map((t) => ({ ...t, userId: 'u' })));
    const hits = await m.recall(query, { userId: 'u', k: 7 });
    const carried = hits.filter((h) => h.parts.previousTurn !== undefined).map((h) => h.memory.text);
    // 'My cat sleeps…' (s2) was stored right after the question (s1): it is not the question's answer.
    expect(carried).toContain('Tuna, mostly.');
    expect(hits.find((h) => h.memory.text === 'My cat sleeps all day on the sofa')?.parts.previousTurn).toBeUndefined();

    // Still a top k: the first k of a larger k, with the same scores (a carried turn's own score is the index's, bit for bit).
    for (let k = 1; k < 7; k++) {
      const first = (await m.recall(query, { userId: 'u', k })).map((h) => [h.memory.id, h.score, h.parts]);
      expect(first).toEqual(hits.slice(0, k).map((h) => [h.memory.id, h.score, h.parts]));
    }

    const onlyAna = await m.recall(query, { userId: 'u', k: 7, filter: { speaker: 'Ana' } });
    expect(onlyAna.map((h) => h.memory.text)).not.toContain('Tuna, mostly.');
    expect(onlyAna.every((h) => (h.memory as { speaker: string }).speaker === 'Ana')).toBe(true);
  });
});

describe('formatContext with turns', () => {
  it('quotes the question a carried turn answers, once, and only when the question is not a line of its own', async () => {
    const m = await open({ clock: () => 1_800_000_000_000 });
    await m.turns.addMany([
      { userId: 'u', sessionId: 's1', speaker: 'Ana', text: 'What does your cat like to eat?' },
      { userId: 'u', sessionId: 's1', speaker: 'Bo', text: 'Tuna, mostly.' },
    ]);
    const hits = await m.recall('what does the cat like to eat?', { userId: 'u', k: 2 });
    const answer = hits.find((h) => h.memory.text === 'Tuna, mostly.')!;
    expect(answer.answers).toMatchObject({ speaker: 'Ana', text: 'What does your cat like to eat?' });
    const options = { timeZone: 'UTC', now: 1_800_000_000_000 };
    expect(m.formatContext([answer], options).split('\n')[1]).toBe('- (2027-01-15, turn, Bo, answering Ana: "What does your cat like to eat?") Tuna, mostly.');
    const both = m.formatContext(hits, options).split('\n').slice(1);
    expect(both).toEqual(['- (2027-01-15, turn, Ana) What does your cat like to eat?', '- (2027-01-15, turn, Bo) Tuna, mostly.']);
    // A long question is cut at a word; a hand-built hit without its speaker is refused.
    const long = { ...answer, answers: { ...answer.answers!, text: `Tell me ${'about your cat and '.repeat(20)}its food` } };
    expect(m.formatContext([long], options)).toMatch(/answering Ana: "Tell me about your cat and about .{0,140}…"\) Tuna, mostly\.$/);
    expect(() => m.formatContext([{ ...answer, memory: { ...answer.memory, speaker: undefined } } as never], options)).toThrow(ValidationError);
  });
});
