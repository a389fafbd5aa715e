import { afterEach, describe, expect, it } from 'vitest';
import { ImportError, ValidationError, type Memory } from '../../src/index.js';
import { fnv1a } from '../../src/text/fnv1a.js';
import { openMemory, snapshot } from '../support/memory.js';

/**
 * One id, one memory (issue 46, item 8): episodes, facts, turns and tasks
 * share one id space (recall and vector blocks find a memory by its id), so
 * no write, whichever method or import makes it, may put an id that another
 * kind holds. The refusal is typed and the store is left exactly as it was.
 */
const memories: Memory[] = [];
afterEach(async () => {
  await Promise.all(memories.splice(0).map((m) => m.close()));
});
async function open(): Promise<Memory> {
  const m = await openMemory();
  memories.push(m);
  return m;
}

async function refusedWith<T extends Error>(call: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await call.then(
    () => new Error('the write was accepted'),
    (e: unknown) => e,
  );
  expect(error, String((error as Error)?.message)).toBeInstanceOf(type);
  return error as T;
}

/** A memory holding one of each kind: fact f1, episode e1, turn t1, task (its id returned). */
async function stocked(): Promise<{ memory: Memory; taskId: string }> {
  const memory = await open();
  await memory.facts.add({ id: 'f1', text: 'The user grew up in Lyon' });
  await memory.episodes.add({ id: 'e1', text: 'We planned a trip to the Alps in March' });
  await memory.turns.add({ id: 't1', speaker: 'user', sessionId: 's1', text: 'My sister lives in Porto' });
  const task = await memory.tasks.start({ description: 'Book the train to Porto', type: 'other', context: { complexity: 'simple', domain: 'travel', tags: [] } });
  await task.complete({ kind: 'success', verdict: 'booked', artifacts: [] });
  return { memory, taskId: task.id };
}

describe('ids are unique across memory kinds', () => {
  it('a turn, fact or episode is refused under the id of a stored memory of another kind, and the store is unchanged', async () => {
    const { memory, taskId } = await stocked();
    const before = await snapshot(memory);
    const writes: [string, () => Promise<unknown>][] = [
      ['turns.add over a fact', () => memory.turns.add({ id: 'f1', speaker: 'user', text: 'I grew up in Lyon' })],
      ['turns.addMany over an episode', () => memory.turns.addMany([{ id: 'fresh', speaker: 'user', text: 'hello' }, { id: 'e1', speaker: 'user', text: 'The Alps' }])],
      ['turns.add over a task', () => memory.turns.add({ id: taskId, speaker: 'user', text: 'the train' })],
      ['facts.add over a turn', () => memory.facts.add({ id: 't1', text: 'The user has a sister in Porto' }, { merge: false })],
      ['facts.addMany over an episode', () => memory.facts.addMany([{ id: 'e1', text: 'The user likes the Alps' }])],
      ['episodes.add over a fact', () => memory.episodes.add({ id: 'f1', text: 'Talked about Lyon' })],
      ['episodes.add over a turn', () => memory.episodes.add({ id: 't1', text: 'Talked about Porto' })],
    ];
    for (const [what, write] of writes) {
      const error = await refusedWith(write(), ValidationError);
      expect([what, error.message]).toEqual([what, expect.stringMatching(/^Id "(f1|e1|t1|.+)" is already used by (a fact|an episode|a turn|a task)/)]);
      expect(await snapshot(memory)).toEqual(before);
    }
    // Each id still finds its own memory.
    expect((await memory.recall('Where did the user grow up?', { types: ['fact', 'turn'], k: 5 })).filter((h) => h.memory.id === 'f1').map((h) => h.memory.type)).toEqual(['fact']);
    // Writing a memory again under its own id (same kind) is still an update.
    await memory.facts.add({ id: 'f1', text: 'The user grew up in Lyon, France' }, { merge: false });
    expect((await memory.facts.get('f1')).text).toBe('The user grew up in Lyon, France');
  });

  it("an id observe() generated for a turn is refused for another kind (the commit skips only the generated id's own check)", async () => {
    const memory = await open();
    await memory.observe({ user: 'My sister lives in Porto', assistant: 'Porto is lovely in spring.' });
    const [turn] = await memory.turns.list({ order: 'asc' });
    const before = await snapshot(memory);
    const error = await refusedWith(memory.facts.add({ id: turn!.id, text: 'The user has a sister in Porto' }, { merge: false }), ValidationError);
    expect(error.message).toMatch(/is already used by a turn/);
    expect(await snapshot(memory)).toEqual(before);
  });

  it("an import is refused when one of its memories has a stored memory's id of another kind, and writes nothing", async () => {
    const { memory, taskId } = await stocked();
    const before = await snapshot(memory);
    for (const [what, add] of [
      ['a turn with a fact id', (m: Memory) => m.turns.add({ id: 'f1', speaker: 'user', text: 'I grew up in Lyon' })],
      ['a fact with a turn id', (m: Memory) => m.facts.add({ id: 't1', text: 'The user has a sister' })],
      ['an episode with a task id', (m: Memory) => m.episodes.add({ id: taskId, text: 'Booked the train' })],
    ] as const) {
      const other = await open();
      await other.facts.add({ id: 'unrelated', text: 'The user owns a bicycle' });
      await add(other);
      const error = await refusedWith(memory.import(await other.export()), ImportError);
      expect([what, error.message]).toEqual([what, expect.stringMatching(/is already used by (a fact|a turn|a task) in this memory/)]);
      expect(await snapshot(memory)).toEqual(before);
    }
    // A file holding one id twice, as a fact and as a task (re-sealed, as a buggy tool would), is refused too.
    const lines = (await (await memory.export()).text()).trim().split('\n').slice(0, -1);
    const twice = [...lines, lines.find((l) => l.startsWith('{"kind":"fact"'))!.replace('"id":"f1"', `"id":"${taskId}"`)];
    const sealed = [...twice, JSON.stringify({ kind: 'end', lines: twice.length, checksum: fnv1a(twice.join('\n')) })].join('\n');
    expect((await refusedWith(memory.import(sealed), ImportError)).message).toContain(`a second record with the same id (${taskId})`);
    expect(await snapshot(memory)).toEqual(before);

    // The store's own export imports, into itself and into an empty memory: the same records (key order inside a line aside).
    const records = async (m: Memory) => (await snapshot(m)).map((line) => JSON.parse(line) as unknown);
    const exported = await memory.export();
    await memory.import(exported);
    expect(await records(memory)).toEqual(before.map((line) => JSON.parse(line) as unknown));
    const copy = await open();
    await copy.import(exported);
    expect(await records(copy)).toEqual(before.map((line) => JSON.parse(line) as unknown));
  });
});

describe('imported turns keep their own order', () => {
  it('turns whose session and sequence numbers collide with stored turns follow their own questions, never the stored ones', async () => {
    const memory = await open();
    await memory.turns.addMany([
      { id: 'dog-q', speaker: 'user', sessionId: 's1', text: 'Where does your dog sleep at night?' },
      { id: 'dog-a', speaker: 'assistant', sessionId: 's1', text: 'In a basket by the stove.' },
    ]);
    const other = await open();
    await other.turns.addMany([
      { id: 'cat-q', speaker: 'user', sessionId: 's1', text: 'What does your cat eat?' },
      { id: 'cat-a', speaker: 'assistant', sessionId: 's1', text: 'Tuna, mostly.' },
      { id: 'cat-b', speaker: 'assistant', sessionId: 's1', text: 'And sometimes chicken.' },
    ]);
    await memory.import(await other.export());

    // One session, each conversation in its own order, the imported one after the stored one.
    expect((await memory.turns.list({ sessionId: 's1', order: 'asc', limit: 10 })).sort((a, b) => a.seq - b.seq).map((t) => t.id)).toEqual(['dog-q', 'dog-a', 'cat-q', 'cat-a', 'cat-b']);
    const answered = async (query: string, id: string) => (await memory.recall(query, { k: 10, touch: false })).find((h) => h.memory.id === id)?.answers?.id;
    expect(await answered('Where does your dog sleep at night?', 'dog-a')).toBe('dog-q');
    expect(await answered('What does your cat eat?', 'cat-a')).toBe('cat-q');
    expect(await answered('Where does your dog sleep at night?', 'cat-a')).not.toBe('dog-q');
  });

  it('an export imported into an empty memory keeps its sequence numbers', async () => {
    const source = await open();
    await source.turns.addMany(Array.from({ length: 5 }, (_, i) => ({ id: `t${i}`, speaker: i % 2 ? 'assistant' : 'user', sessionId: `s${i % 2}`, text: `turn number ${i}` })));
    await source.turns.delete('t0');
    const copy = await open();
    await copy.import(await source.export());
    expect(await snapshot(copy)).toEqual(await snapshot(source));
  });
});
