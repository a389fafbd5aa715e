import { describe, expect, it } from 'vitest';
import {
  ClosedError,
  createMemory,
  EmbedderError,
  ImportError,
  NotFoundError,
  ValidationError,
  type Memory,
} from '../../src/index.js';
import { freshIndexedDB, MODEL, openMemory, snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

// The store the cases share, opened by the first of them: closed after the file's last test.
const shared = memoryFixture({ closeAfter: 'all' });
let memory: Memory;

/** Seeds a store, runs `call`, and checks it rejects with `type` and left the store exactly as it was. */
async function rejectsUnchanged(call: (m: Memory) => Promise<unknown>, type: new (...args: never[]) => Error, message?: RegExp) {
  memory ??= await shared.open();
  const before = await snapshot(memory);
  const error = await call(memory).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  if (message) expect((error as Error).message).toMatch(message);
  expect(await snapshot(memory)).toEqual(before);
}

describe('bad input gives a typed error and leaves the store unchanged', () => {
  it('seed', async () => {
    memory = await shared.open();
    await memory.episodes.add({ id: 'e1', text: 'Existing episode about gardening' });
    await memory.facts.add({ id: 'f1', text: 'Existing fact about tomatoes' });
  });

  const cases: [string, (m: Memory) => Promise<unknown>, new (...args: never[]) => Error, RegExp?][] = [
    ['empty text', (m) => m.episodes.add({ text: '' }), ValidationError, /text: must not be empty/],
    ['whitespace text', (m) => m.facts.add({ text: '   \n' }), ValidationError, /text/],
    ['non-string text', (m) => m.facts.add({ text: 42 as unknown as string }), ValidationError, /text/],
    ['missing text and goal', (m) => m.episodes.add({ tags: ['x'] } as never), ValidationError, /needs `text` or `goal`/],
    ['unknown field', (m) => m.episodes.add({ text: 'ok', colour: 'red' } as never), ValidationError, /episodes\.add: Unrecognized key: "colour"/],
    ['wrong type in a field', (m) => m.episodes.add({ text: 'ok', importance: 'high' } as never), ValidationError, /importance: Invalid input: expected number, received string/],
    ['importance out of range', (m) => m.facts.add({ text: 'ok', importance: 1.5 }), ValidationError, /importance: Too big: expected number to be <=1/],
    ['oversized text', (m) => m.facts.add({ text: 'x'.repeat(100_001) }), ValidationError, /at most 100000 characters|100,000/],
    ['too many tags', (m) => m.facts.add({ text: 'ok', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }), ValidationError, /tags/],
    ['unknown episode id', (m) => m.episodes.get('nope'), NotFoundError, /No episode with id "nope"/],
    ['unknown fact id on update', (m) => m.facts.update('nope', { text: 'x' }), NotFoundError, /nope/],
    ['unknown id on delete', (m) => m.episodes.delete('nope'), NotFoundError],
    ['empty id', (m) => m.facts.get(''), ValidationError, /id/],
    ['control characters in id', (m) => m.facts.get('a\u0000b'), ValidationError, /control characters/],
    ['unknown parent', (m) => m.episodes.add({ text: 'child', parentId: 'missing-parent' }), NotFoundError, /missing-parent/],
    ['empty recall query', (m) => m.recall(''), ValidationError, /query/],
    ['recall k out of range', (m) => m.recall('garden', { k: 0 }), ValidationError, /k: Too small: expected number to be >=1/],
    ['recall k not an integer', (m) => m.recall('garden', { k: 2.5 }), ValidationError, /k: Invalid input: expected int, received number/],
    ['recall with a bad type', (m) => m.recall('garden', { types: ['note' as never] }), ValidationError, /types/],
    ['a patch with a read-only field', (m) => m.facts.update('f1', { createdAt: 1 } as never), ValidationError, /createdAt/],
    ['update to empty text', (m) => m.episodes.update('e1', { text: ' ' }), ValidationError, /text/],
    ['import of garbage', (m) => m.import('not an export'), ImportError],
    ['import of a non-string', (m) => m.import(12 as never), ValidationError],
  ];

  for (const [name, call, type, message] of cases) {
    it(name, async () => {
      await rejectsUnchanged(call, type, message);
    });
  }
});

describe("an app's own zod configuration", () => {
  it('does not reword engram\'s messages (engram gives its English messages per parse)', async () => {
    const { config } = await import('zod/mini');
    const before = { ...config() };
    config({ customError: () => 'the app says no' });
    try {
      await rejectsUnchanged((m) => m.recall('garden', { k: 0 }), ValidationError, /^recall: k: Too small: expected number to be >=1$/);
    } finally {
      config({ customError: before.customError });
    }
  });
});

describe('closed memory', () => {
  it('rejects every call with ClosedError', async () => {
    const m = await openMemory();
    await m.close();
    await m.close(); // idempotent
    await expect(m.recall('anything')).rejects.toBeInstanceOf(ClosedError);
    await expect(m.episodes.add({ text: 'late' })).rejects.toBeInstanceOf(ClosedError);
    await expect(m.facts.list()).rejects.toThrow(/has been closed/);
  });
});

describe('bad options', () => {
  it('a model folder that does not exist', async () => {
    const error = await createMemory({
      name: 'no-model',
      ...freshIndexedDB(),
      embedder: { model: MODEL, localModelPath: '/definitely/not/here/' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect((error as Error).message).toMatch(/\/definitely\/not\/here\//);
  });

  it('unknown options and wrong types', async () => {
    await expect(createMemory({ name: '', ...freshIndexedDB() })).rejects.toThrow(/name: must not be empty/);
    // An empty id is reported once, as what it is (not also as "contains control characters").
    const m = await openMemory();
    await expect(m.facts.get('')).rejects.toThrow(/^facts\.get: id: must not be empty$/);
    await expect(m.facts.add({ id: '', text: 'x' })).rejects.toThrow(/^facts\.add: id: must not be empty$/);
    await m.close();
    await expect(createMemory({ name: 'x', ...freshIndexedDB(), lifecycle: { maxEpisodes: -1 } })).rejects.toBeInstanceOf(ValidationError);
    await expect(createMemory({ name: 'x', ...freshIndexedDB(), colour: 'red' } as never)).rejects.toThrow(/colour/);
  });

  it('no IndexedDB in Node says how to get one', async () => {
    await expect(createMemory({ name: 'x' })).rejects.toThrow(/fake-indexeddb/);
  });
});
