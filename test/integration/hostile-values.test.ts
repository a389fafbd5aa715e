import { describe, expect, it } from 'vitest';
import { ValidationError, type Memory } from '../../src/index.js';
import { vectorsFor } from '../../src/embed/provided-embeddings.js';
import { realEmbedder, snapshot } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Values that change after validation, and explicit `undefined` in patches
 * (issue 20, items 2 and 3). engram validates a plain-data copy of every
 * input and writes exactly that copy: nothing the caller still holds (a
 * getter, a Proxy, an array it mutates later) can change what is stored.
 */

const { open: memory } = memoryFixture();

/** An array that reads as `first(i)` the first time each index is read and `later(i)` on every read after. */
function changingArray(length: number, first: (i: number) => number, later: (i: number) => unknown): number[] {
  const read = new Set<number>();
  return new Proxy(Array.from({ length }, (_, i) => first(i)), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        const i = Number(key);
        if (read.has(i)) return later(i);
        read.add(i);
        return first(i);
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** An object whose `key` is `first` on the first read and `later` on every read after. */
function changingObject(key: string, first: unknown, later: unknown): Record<string, unknown> {
  let reads = 0;
  return Object.defineProperty({}, key, { enumerable: true, get: () => (reads++ === 0 ? first : later) });
}

/** The stored vectors of the export, decoded. */
async function exportedVectors(m: Memory): Promise<Map<string, Float32Array>> {
  const text = await (await m.export()).text();
  const out = new Map<string, Float32Array>();
  for (const line of text.trim().split('\n')) {
    const parsed = JSON.parse(line) as { kind: string; id?: string; vector?: string };
    if (parsed.kind !== 'vector') continue;
    const bytes = Buffer.from(parsed.vector!, 'base64');
    out.set(parsed.id!, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
  }
  return out;
}

/** The store's own export imports into a fresh memory and reads back the same (key order aside). */
async function expectExportRoundTrips(m: Memory): Promise<void> {
  const parsed = async (of: Memory) => (await snapshot(of)).map((line) => JSON.parse(line) as unknown);
  const before = await parsed(m);
  const copy = await memory();
  await copy.import(await m.export());
  expect(await parsed(copy)).toEqual(before);
}

describe('values that change after validation are stored as validated', () => {
  it('a Proxy embedding that reads finite once and NaN afterwards stores the finite vector', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const embedding = changingArray(dimension, (i) => (i === 0 ? 3 : i === 1 ? 4 : 0), () => NaN);
    const fact = await m.facts.add({ text: 'The user keeps a proxy of a vector', embedding });

    const vector = (await exportedVectors(m)).get(fact.id)!;
    expect(Array.from(vector.subarray(0, 3))).toEqual([Math.fround(0.6), Math.fround(0.8), 0]);
    expect(vector.every(Number.isFinite)).toBe(true);
    const plain = Array.from({ length: dimension }, (_, i) => (i === 0 ? 3 : i === 1 ? 4 : 0));
    const [hit] = await m.recall('proxy vector', { embedding: plain, touch: false });
    expect(hit!.memory.id).toBe(fact.id);
    expect(Number.isFinite(hit!.score)).toBe(true);
    await expectExportRoundTrips(m);
  });

  it('a Float32Array changed right after the call is stored as it was when called', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const embedding = new Float32Array(dimension).fill(1);
    const pending = m.facts.add({ text: 'The user hands over a typed array', embedding });
    embedding.fill(NaN);
    const fact = await pending;
    const vector = (await exportedVectors(m)).get(fact.id)!;
    expect(vector.every((x) => Math.abs(x - 1 / Math.sqrt(dimension)) < 1e-6)).toBe(true);
  });

  it('a recall embedding that turns NaN after validation still scores finite', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    await m.facts.add({ text: 'The user likes plums' });
    const embedding = changingArray(dimension, (i) => (i === 0 ? 1 : 0), () => NaN);
    const hits = await m.recall('plums', { embedding, touch: false });
    expect(hits.length).toBe(1);
    expect(Number.isFinite(hits[0]!.score)).toBe(true);
  });

  it('a metadata getter that becomes a BigInt after validation stores the validated value, and export still works', async () => {
    const m = await memory();
    const fact = await m.facts.add({ text: 'The user collects stamps', metadata: { nested: changingObject('count', 1, 10n) } });
    expect((await m.facts.get(fact.id)).metadata).toEqual({ nested: { count: 1 } });
    const episode = await m.episodes.add({ text: 'Sorted the stamp album', metadata: changingObject('count', 2, 20n) });
    expect((await m.episodes.get(episode.id)).metadata).toEqual({ count: 2 });
    await expectExportRoundTrips(m);
  });

  it('a getter that returns 5,000,014 characters after validation cannot exceed the 100,000-character limit', async () => {
    const m = await memory();
    const huge = 'x'.repeat(5_000_014);
    const fact = await m.facts.add({ text: 'The user writes short notes', metadata: { note: changingObject('body', 'short', huge) } });
    const stored = await m.facts.get(fact.id);
    expect(stored.metadata).toEqual({ note: { body: 'short' } });
    expect(JSON.stringify(stored).length).toBeLessThan(100_000);
    const task = await m.tasks.start({ description: 'Write a note', type: 'other', context: { complexity: 'simple', domain: 'notes' }, metadata: { note: changingObject('body', 'short', huge) } });
    expect((await m.tasks.get(task.id)).metadata).toEqual({ note: { body: 'short' } });
    await expectExportRoundTrips(m);
  });

  it('a text getter read once: the validated text is the stored text', async () => {
    const m = await memory();
    const live = Object.defineProperty({ tags: ['books'] }, 'text', { enumerable: true, get: changingGetter('The user reads at night', '') });
    const fact = await m.facts.add(live as never);
    expect((await m.facts.get(fact.id)).text).toBe('The user reads at night');
  });

  it('an array with a function property is stored as its elements (nothing uncloneable is kept)', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const embedding = Object.assign(Array.from({ length: dimension }, () => 1), { extra: () => 'not data' });
    const tags = Object.assign(['fn-prop'], { extra: () => 'not data' });
    const fact = await m.facts.add({ text: 'The user passes decorated arrays', embedding, tags });
    expect((await m.facts.get(fact.id)).tags).toEqual(['fn-prop']);
    expect((await exportedVectors(m)).get(fact.id)!.length).toBe(dimension);
  });

  it('functions, symbols, BigInts, cycles and exotic objects inside metadata are refused with a ValidationError naming the path', async () => {
    const m = await memory();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cases: [unknown, string][] = [
      [{ a: { f: () => 1 } }, 'metadata.a.f'],
      [{ a: [1, Symbol('s')] }, 'metadata.a.1'],
      [{ a: 1n }, 'metadata.a'],
      [{ a: cycle }, 'metadata.a.self'],
      [{ a: new Map([[1, 2]]) }, 'metadata.a'],
    ];
    const before = await snapshot(m);
    for (const [metadata, path] of cases) {
      const error = await m.facts.add({ text: 'The user is hostile', metadata: metadata as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    }
    expect(await snapshot(m)).toEqual(before);
  });

  it('import takes a Blob or a File (kept, not copied), not an object that only calls itself one', async () => {
    const source = await memory();
    await source.facts.add({ id: 'b1', text: 'The user keeps bees on the roof' });
    const text = await (await source.export()).text();
    for (const data of [new Blob([text]), new File([text], 'memory.jsonl')]) {
      const target = await memory();
      expect(await target.import(data)).toMatchObject({ facts: 1 });
      expect((await target.facts.get('b1')).text).toBe('The user keeps bees on the roof');
    }
    const impostor = { [Symbol.toStringTag]: 'Blob', size: text.length, text: async () => text };
    await expect((await memory()).import(impostor as never)).rejects.toThrow(ValidationError);
  });

  it('a getter that throws is a ValidationError, and so is an error whose message getter throws', async () => {
    const m = await memory();
    const throwing = Object.defineProperty({}, 'text', { enumerable: true, get: () => { throw new Error('boom'); } });
    await expect(m.facts.add(throwing as never)).rejects.toThrow(ValidationError);
    const nasty = new Proxy({}, { get: () => { throw new Error('no'); } });
    const throwsNasty = Object.defineProperty({}, 'text', { enumerable: true, get: () => { throw nasty; } });
    await expect(m.facts.add(throwsNasty as never)).rejects.toThrow(ValidationError);
  });
});

/** A getter returning `first` once, then `later`. */
function changingGetter(first: unknown, later: unknown): () => unknown {
  let reads = 0;
  return () => (reads++ === 0 ? first : later);
}

describe('explicit undefined in an update is the same as leaving the field out', () => {
  const FACT_KEYS = ['text', 'category', 'importance', 'pinned', 'tags', 'metadata'] as const;
  const EPISODE_KEYS = [
    'text', 'goal', 'context', 'approach', 'outcome', 'lessons', 'quality', 'tags', 'actors', 'participants', 'toolsUsed', 'entities',
    'keyDecisions', 'outcomeStatus', 'importance', 'pinned', 'provenance', 'parentId', 'state', 'metadata', 'endedAt',
  ] as const;
  const withoutUpdatedAt = <T extends { updatedAt: number }>(r: T) => ({ ...r, updatedAt: 0 });

  it.each(FACT_KEYS)('facts.update(id, { %s: undefined }) leaves the fact as it was', async (key) => {
    const m = await memory();
    const fact = await m.facts.add({ text: 'The user grows basil', tags: ['herbs'], metadata: { pot: 'clay' }, category: 'preference', importance: 0.6, pinned: true });
    const updated = await m.facts.update(fact.id, { [key]: undefined });
    expect(Object.keys(updated).sort()).toEqual(Object.keys(fact).sort());
    expect(withoutUpdatedAt(updated)).toEqual(withoutUpdatedAt(fact));
    expect(withoutUpdatedAt(await m.facts.get(fact.id))).toEqual(withoutUpdatedAt(fact));
    expect((await m.recall('basil', { tags: ['herbs'], touch: false })).map((h) => h.memory.id)).toEqual([fact.id]);
    await expectExportRoundTrips(m);
  });

  it.each(EPISODE_KEYS)('episodes.update(id, { %s: undefined }) leaves the episode as it was', async (key) => {
    const m = await memory();
    const episode = await m.episodes.add({ text: 'Repotted the basil', goal: 'Save the basil', tags: ['herbs'], metadata: { pot: 'clay' }, importance: 0.6, pinned: true });
    const updated = await m.episodes.update(episode.id, { [key]: undefined });
    expect(Object.keys(updated).sort()).toEqual(Object.keys(episode).sort());
    expect(withoutUpdatedAt(updated)).toEqual(withoutUpdatedAt(episode));
    expect(withoutUpdatedAt(await m.episodes.get(episode.id))).toEqual(withoutUpdatedAt(episode));
    expect((await m.recall('basil', { tags: ['herbs'], touch: false })).map((h) => h.memory.id)).toEqual([episode.id]);
    await expectExportRoundTrips(m);
  });

  it('profile.update with undefined fields leaves the profile as it was', async () => {
    const m = await memory();
    await m.profile.update('default', { name: 'Ana', city: 'Porto', goals: ['run'] });
    const before = await m.profile.get('default');
    await m.profile.update('default', { name: undefined, city: undefined, goals: undefined, extra: undefined, timeZone: undefined });
    expect({ ...(await m.profile.get('default')), updatedAt: 0 }).toEqual({ ...before, updatedAt: 0 });
    await expectExportRoundTrips(m);
  });

  it('undefined inside metadata is dropped (in an array: null) like in JSON, and null stays null', async () => {
    const m = await memory();
    const fact = await m.facts.add({ text: 'The user has a nullable field', metadata: { gone: undefined, kept: null, list: [1, null, undefined] } });
    expect((await m.facts.get(fact.id)).metadata).toEqual({ kept: null, list: [1, null, null] });
    expect(Object.keys((await m.facts.get(fact.id)).metadata)).toEqual(['kept', 'list']);
    const episode = await m.episodes.add({ text: 'Nullable quality test', quality: 'success', parentId: null });
    const updated = await m.episodes.update(episode.id, { quality: null, lessons: undefined });
    expect(updated.quality).toBeNull();
    expect(updated.lessons).toBeNull();
  });
});

describe('embeddings are checked as they will be stored (float32)', () => {
  it('refuses a vector whose float32 values are all zero, like [1e-46, 0, …], and writes nothing', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const before = await snapshot(m);
    for (const tiny of [1e-46, -1e-46, 7e-46]) {
      const embedding = Array.from({ length: dimension }, (_, i) => (i === 0 ? tiny : 0));
      const error = await m.facts.add({ text: 'The user is almost nothing', embedding }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/all zeros/);
      await expect(m.recall('nothing', { embedding })).rejects.toThrow(ValidationError);
    }
    const allTiny = Array.from({ length: dimension }, () => 1e-46);
    await expect(m.facts.addMany([{ text: 'The user is tiny', embedding: allTiny }])).rejects.toThrow(ValidationError);
    expect(await snapshot(m)).toEqual(before);
  });

  it('accepts the smallest float32 subnormal and stores it normalised to unit length', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const embedding = Array.from({ length: dimension }, (_, i) => (i === 0 ? 1e-45 : 0));
    const fact = await m.facts.add({ text: 'The user is barely there', embedding });
    const vector = (await exportedVectors(m)).get(fact.id)!;
    expect(vector[0]).toBe(1);
    expect(vector.slice(1).every((x) => x === 0)).toBe(true);
  });

  it('refuses a number that would round to float32 Infinity', async () => {
    const m = await memory();
    const { dimension } = await realEmbedder();
    const embedding = Array.from({ length: dimension }, (_, i) => (i === 0 ? 3.4028235677973366e38 : 1));
    await expect(m.facts.add({ text: 'The user is enormous', embedding })).rejects.toThrow(ValidationError);
  });

  it('the engine itself refuses a non-finite or all-zero vector (defence in depth, for an engine used directly)', async () => {
    const embedder = await realEmbedder();
    const where = { call: 'facts.add', path: () => 'embedding' };
    const d = embedder.dimension;
    for (const embedding of [new Float32Array(d), new Float32Array(d).fill(NaN), Array.from({ length: d }, (_, i) => (i ? 0 : 1e-46)), Array.from({ length: d }, (_, i) => (i ? 1 : Infinity))]) {
      await expect(vectorsFor({ embedder }, [{ text: 'x', embedding }], where)).rejects.toThrow(ValidationError);
    }
    const [ok] = await vectorsFor({ embedder }, [{ text: 'x', embedding: Array.from({ length: d }, (_, i) => (i ? 0 : 2)) }], where);
    expect(ok![0]).toBe(1);
  });
});
