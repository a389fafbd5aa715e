import { describe, expect, it } from 'vitest';
import { ValidationError, type Embedder, type Memory } from '../../src/index.js';
import { decodeVector } from '../../src/portability/export-format.js';
import { snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * facts.add / addMany with pre-computed embeddings, `returnRecords: false`,
 * and re-adding existing ids in bulk. A small deterministic embedder (8-d)
 * counts the texts it is asked to embed, so a test can tell which vectors
 * engram computed and which it took from the input.
 */
const DIM = 8;

function countingEmbedder(): Embedder & { embedded: string[] } {
  const embedded: string[] = [];
  return {
    id: 'test-hash-8',
    dimension: DIM,
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((text) => {
        const v = new Float32Array(DIM);
        for (let i = 0; i < text.length; i++) v[i % DIM]! += text.charCodeAt(i) / 100;
        return v;
      });
    },
  };
}

const memories = memoryFixture();
async function open(): Promise<{ memory: Memory; embedder: ReturnType<typeof countingEmbedder> }> {
  const embedder = countingEmbedder();
  const memory = await memories.open({ embedder });
  return { memory, embedder };
}

/** The stored vector of every memory, from an export with vectors. */
async function storedVectors(memory: Memory): Promise<Map<string, number[]>> {
  const lines = (await (await memory.export({ vectors: true })).text()).trim().split('\n').map((l) => JSON.parse(l) as { kind: string; id: string; vector: string });
  return new Map(lines.filter((l) => l.kind === 'vector').map((l) => [l.id, [...decodeVector(l.vector)]]));
}

const unit = (i: number) => Array.from({ length: DIM }, (_, j) => (j === i ? 1 : 0));
const close = (actual: number[] | undefined, expected: number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual!.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 6));
};

async function rejection(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('pre-computed embeddings', () => {
  it('stores a given embedding (Float32Array or number[]) normalised, and embeds only the texts without one', async () => {
    const { memory, embedder } = await open();
    const given = new Float32Array(DIM);
    given[0] = 3;
    given[1] = 4;
    const facts = await memory.facts.addMany([
      { id: 'a', text: 'given as a Float32Array', embedding: given },
      { id: 'b', text: 'embedded by the embedder' },
      { id: 'c', text: 'given as numbers', embedding: unit(2).map((x) => x * 0.25) },
    ]);
    expect(facts.map((f) => f.id)).toEqual(['a', 'b', 'c']);
    expect(embedder.embedded).toEqual(['embedded by the embedder']);
    expect(facts[0]).not.toHaveProperty('embedding');
    const vectors = await storedVectors(memory);
    close(vectors.get('a'), [0.6, 0.8, 0, 0, 0, 0, 0, 0]);
    close(vectors.get('c'), unit(2));
    expect(Math.hypot(...vectors.get('b')!)).toBeCloseTo(1, 6);
    // The caller's array is not normalised in place.
    expect([...given].slice(0, 2)).toEqual([3, 4]);

    // Recall finds them by those vectors: the query embeds to axis 2's neighbour.
    const hits = await memory.recall('given as numbers', { k: 3 });
    expect(hits.map((h) => h.memory.id)).toContain('c');
  });

  it('facts.add takes one too, and then makes no embedder call', async () => {
    const { memory, embedder } = await open();
    const fact = await memory.facts.add({ id: 'x', text: 'single', embedding: unit(5) });
    expect(fact.id).toBe('x');
    expect(embedder.embedded).toEqual([]);
    close((await storedVectors(memory)).get('x'), unit(5));
  });

  it('a view into a larger buffer is stored as its own vector', async () => {
    const { memory } = await open();
    const big = new Float32Array(DIM * 3);
    big.set(unit(1), DIM);
    await memory.facts.addMany([{ id: 'v', text: 'a view', embedding: big.subarray(DIM, 2 * DIM) }]);
    close((await storedVectors(memory)).get('v'), unit(1));
  });

  const bad: [string, unknown, RegExp][] = [
    ['NaN', [Number.NaN, ...unit(0).slice(1)], /0: must be a finite number/],
    ['Infinity in a Float32Array', Float32Array.from([1, Number.POSITIVE_INFINITY, 0, 0, 0, 0, 0, 0]), /1: must be a finite number/],
    ['a number beyond float32', [1e39, 0, 0, 0, 0, 0, 0, 0], /0: must be a finite number/],
    ['a string inside', ['1', 0, 0, 0, 0, 0, 0, 0], /0: must be a finite number/],
    ['all zeros', new Float32Array(DIM), /must not be all zeros/],
    ['empty', [], /must not be empty/],
    ['a Float64Array', new Float64Array(DIM).fill(1), /must be a Float32Array or an array of numbers/],
    ['a string', 'vector', /must be a Float32Array or an array of numbers/],
    ['too long', new Float32Array(8193).fill(1), /at most 8,192 numbers/],
  ];
  for (const [name, embedding, message] of bad) {
    it(`refuses ${name} with a ValidationError and writes nothing`, async () => {
      const { memory, embedder } = await open();
      await memory.facts.add({ id: 'kept', text: 'already here' });
      const before = await snapshot(memory);
      const error = await rejection(memory.facts.addMany([{ text: 'fine', embedding: unit(0) }, { text: 'bad', embedding: embedding as number[] }]));
      expect(error.message).toMatch(/^facts\.addMany: 1\.embedding/);
      expect(error.message).toMatch(message);
      expect(await snapshot(memory)).toEqual(before);
      expect(embedder.embedded).toEqual(['already here']);
    });
  }

  it("refuses an embedding that is not the embedder's dimension, before embedding or writing anything", async () => {
    const { memory, embedder } = await open();
    await memory.facts.add({ id: 'kept', text: 'already here' });
    const before = await snapshot(memory);
    const many = await rejection(
      memory.facts.addMany([{ text: 'needs the embedder' }, { id: 'kept', text: 'changed' }, { text: 'short', embedding: [1, 2, 3] }]),
    );
    expect(many.message).toBe('facts.addMany: 2.embedding: must have exactly 8 numbers, the dimension of the embedder "test-hash-8" (it has 3)');
    expect(many.issues).toEqual([{ path: '2.embedding', message: expect.stringMatching(/exactly 8 numbers/) }]);
    const one = await rejection(memory.facts.add({ text: 'long', embedding: new Float32Array(DIM + 1).fill(1) }));
    expect(one.message).toMatch(/^facts\.add: embedding: must have exactly 8 numbers/);
    expect(one.issues[0]!.path).toBe('embedding');
    expect(await snapshot(memory)).toEqual(before);
    expect(embedder.embedded).toEqual(['already here']);
  });
});

describe('recall with a pre-computed query embedding', () => {
  it('ranks by the given vector, makes no embedder call, and keeps the keyword signal from the text', async () => {
    const { memory, embedder } = await open();
    await memory.facts.addMany([0, 1, 2, 3].map((i) => ({ id: `axis-${i}`, text: `note on axis ${i}`, embedding: unit(i) })));
    embedder.embedded.length = 0;
    const byVector = await memory.recall('anything at all', { embedding: unit(2).map((x) => x * 5), k: 2, touch: false });
    expect(embedder.embedded).toEqual([]);
    expect(byVector[0]!.memory.id).toBe('axis-2');
    expect(byVector[0]!.parts.similarity).toBeCloseTo(1, 6);
    // The text still matches keywords: "axis 3" lifts axis-3 in the hybrid score although the vector points at axis 2.
    const hybrid = await memory.recall('axis 3', { embedding: Float32Array.from(unit(2)), k: 4, touch: false });
    expect(hybrid.find((h) => h.memory.id === 'axis-3')!.parts.keyword).toBeGreaterThan(0);
    expect(hybrid.find((h) => h.memory.id === 'axis-2')!.parts.similarity).toBeCloseTo(1, 6);
    expect(embedder.embedded).toEqual([]);
  });

  it('refuses a vector of the wrong dimension or shape with a ValidationError naming recall.embedding', async () => {
    const { memory } = await open();
    await memory.facts.add({ text: 'something' });
    const before = await snapshot(memory);
    const short = await rejection(memory.recall('q', { embedding: [1, 2, 3] }));
    expect(short.message).toBe('recall: embedding: must have exactly 8 numbers, the dimension of the embedder "test-hash-8" (it has 3)');
    const zeros = await rejection(memory.recall('q', { embedding: new Float32Array(DIM) }));
    expect(zeros.message).toMatch(/^recall: embedding: must not be all zeros/);
    const nan = await rejection(memory.recall('q', { embedding: [Number.NaN, 0, 0, 0, 0, 0, 0, 1] }));
    expect(nan.message).toMatch(/must be a finite number/);
    // A refused recall records no access either.
    expect(await snapshot(memory)).toEqual(before);
  });
});

describe('addMany({ returnRecords: false })', () => {
  it('resolves to the ids in input order and stores the same facts', async () => {
    const { memory } = await open();
    const ids = await memory.facts.addMany([{ id: 'first', text: 'one' }, { text: 'two' }, { id: 'third', text: 'three' }], { returnRecords: false });
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBe('first');
    expect(ids[2]).toBe('third');
    expect(typeof ids[1]).toBe('string');
    const stored = await memory.facts.list();
    expect(new Set(stored.map((f) => f.id))).toEqual(new Set(ids));
    expect((await memory.facts.get(ids[1]!)).text).toBe('two');
    // The default (and `true`) still returns the records.
    const records = await memory.facts.addMany([{ text: 'four' }], { returnRecords: true });
    expect(records[0]).toMatchObject({ type: 'fact', text: 'four' });
  });

  it('refuses unknown options', async () => {
    const { memory } = await open();
    const before = await snapshot(memory);
    const error = await rejection(memory.facts.addMany([{ text: 'x' }], { returnRecord: false } as never));
    expect(error.message).toMatch(/facts\.addMany: options/);
    expect(await snapshot(memory)).toEqual(before);
  });
});

describe('re-adding existing ids in bulk', () => {
  it('keeps createdAt and validFrom of a stored fact, and refuses another user\'s id with nothing written', async () => {
    const { memory } = await open();
    const [old] = await memory.facts.addMany([{ id: 'k-1', text: 'old text', createdAt: 1_000 }]);
    await memory.facts.add({ id: 'theirs', userId: 'someone-else', text: 'not yours' });
    const updated = await memory.facts.addMany([
      { id: 'k-0', text: 'new before' },
      { id: 'k-1', text: 'new text' },
      { id: 'k-2', text: 'new after' },
    ]);
    expect(updated[1]).toMatchObject({ id: 'k-1', text: 'new text', createdAt: old!.createdAt, validFrom: old!.validFrom });
    expect(updated[0]!.createdAt).toBeGreaterThan(1_000);

    const before = await snapshot(memory);
    const error = await rejection(memory.facts.addMany([{ id: 'k-3', text: 'new' }, { id: 'theirs', text: 'taken over' }]));
    expect(error.message).toMatch(/belongs to another user/);
    expect(await snapshot(memory)).toEqual(before);
  });

  it('is just as right when the id range holds many more stored facts than the batch (the per-id read)', async () => {
    const { memory } = await open();
    const seeded = Array.from({ length: 1_100 }, (_, i) => ({ id: `s${String(i).padStart(5, '0')}`, text: `seed ${i}`, embedding: unit(i % DIM), createdAt: 5_000 + i }));
    await memory.facts.addMany(seeded, { returnRecords: false });
    await memory.facts.add({ id: 's01099x', userId: 'other', text: 'another user', embedding: unit(0) });
    // 's' sorts before every seeded id: 1,100 stored keys lie between the two ids, over the 1,008 one range read takes,
    // and the stored one sits at the far end of the range.
    const again = await memory.facts.addMany([
      { id: 's', text: 'new at the start', embedding: unit(2) },
      { id: 's01099', text: 'last again', embedding: unit(1) },
    ]);
    expect(again[1]).toMatchObject({ id: 's01099', text: 'last again', createdAt: 6_099, validFrom: 6_099 });
    expect(again[0]!.createdAt).toBeGreaterThan(6_099);

    const before = await snapshot(memory);
    const error = await rejection(
      memory.facts.addMany([
        { id: 'r', text: 'fine', embedding: unit(1) },
        { id: 's01099x', text: 'not mine', embedding: unit(1) },
      ]),
    );
    expect(error.message).toMatch(/"s01099x" belongs to another user/);
    expect(await snapshot(memory)).toEqual(before);
  });

  it('new facts without ids get distinct generated ids', async () => {
    const { memory } = await open();
    const ids = await memory.facts.addMany(
      Array.from({ length: 50 }, (_, i) => ({ text: `fact ${i}` })),
      { returnRecords: false },
    );
    expect(new Set(ids).size).toBe(50);
    expect((await memory.facts.list({ limit: 100 })).length).toBe(50);
  });
});
