import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod/mini';
import { createMemory, EngramError, type Memory, type Task } from '../../src/index.js';
import { metadataSchema, tagSchema, timestampSchema } from '../../src/schema/common.js';
import { episodeRecordSchema } from '../../src/schema/episode.js';
import { factRecordSchema } from '../../src/schema/fact.js';
import { turnRecordSchema } from '../../src/schema/turn.js';
import { profileFieldsSchema } from '../../src/schema/profile.js';
import { stepInputSchema, taskContextSchema, taskOutcomeSchema } from '../../src/schema/task.js';
import { builtSchema } from '../../src/schema/lazy-schema.js';
import { freshIndexedDB, realEmbedder } from '../support/memory.js';
import { memoryFixture } from '../support/memory-fixture.js';

/**
 * Property-based fuzzing of every public method with hostile input. Each call
 * must either succeed or fail with a typed EngramError (sync methods: throw
 * one); nothing else may escape, the process must not crash, and the store
 * must change only where a successful call says it did. Seeded: a failure
 * prints the seed and the input, and reruns identically.
 */
const SEED = 0x5eed_e9a;
const RUNS = 280;
/** One clock for every write, so `recall` touching `lastAccessedAt` leaves records byte-identical. */
const NOW = Date.UTC(2026, 0, 1);

// ---------- hostile values ----------

const NASTY_STRINGS = [
  '', ' ', '\t\n', '\u0000', 'a\u0000b', 'e1\u0000', '\uD800', 'x\uDFFFy', '\uDBFF\uDBFF', '\uFFFF', '\u{10FFFF}', '\u202e',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf',
  '../../../etc/passwd', '..\\..\\windows\\system32', '/', '.', '..', '%00', '%2e%2e%2f', '*', '\\',
  'e1', 'e1 ', ' e1', 'E1', 'f1', 'default', 'NaN', 'null', 'undefined', '[]', '{}', '[object Object]',
  'a'.repeat(200), 'a'.repeat(201), 'Europe/Lisbon', 'Not/AZone',
];
const HUGE_STRINGS = ['x'.repeat(100_001), 'word '.repeat(200_000), '\uD800'.repeat(60_000), 'y'.repeat(2_000_000)];

function deep(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
function cyclic(): unknown {
  const o: Record<string, unknown> = { name: 'loop' };
  o.self = o;
  return o;
}
// Both name themselves to fast-check (fc.toStringMethod), which prints counterexamples.
function throwingGetter(): unknown {
  const o = { [fc.toStringMethod]: () => '<object whose "text" getter throws>' };
  return Object.defineProperty(o, 'text', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
}
function throwingProxy(): unknown {
  const describe = () => '<proxy that throws on every string key>';
  return new Proxy({}, {
    get: (_, key) => {
      if (key === fc.toStringMethod) return describe;
      if (typeof key === 'symbol') return undefined;
      throw new Error('proxy exploded');
    },
    ownKeys: () => { throw new Error('proxy exploded'); },
  });
}
/** Sets a key as an own, enumerable property, even `__proto__` (plain assignment would set the prototype). */
function withKey(target: object, key: string, value: unknown): object {
  const copy: Record<string, unknown> = Array.isArray(target) ? [...target] as never : { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * Values that change after validation: `first` on the first read, `later` on
 * every read after. engram must validate and store the first read only.
 */
function withChangingKey(target: object, key: string, first: unknown, later: unknown): object {
  const copy: Record<string, unknown> = Array.isArray(target) ? [...target] as never : { ...target };
  firstReads.set(copy, { ...copy, [key]: first });
  let reads = 0;
  Object.defineProperty(copy, key, { enumerable: true, configurable: true, get: () => (reads++ === 0 ? first : later) });
  return copy;
}
/** What engram saw of each changing value (its first reads), for the checks of what a call may write. */
const firstReads = new WeakMap<object, Record<string, unknown>>();
const firstRead = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && firstReads.has(value) ? firstReads.get(value)![key] : (value as Record<string, unknown>)[key];
/** A Proxy of `target` whose every property answers as `target` on its first read and `later` on the next ones (arrays too). */
function changingProxy(target: object, later: unknown): object {
  const read = new Set<PropertyKey>();
  const copy = Array.isArray(target) ? [...target] : { ...target };
  const proxy = new Proxy(copy, {
    get(t, key, receiver) {
      if (typeof key === 'symbol' || key === 'length') return Reflect.get(t, key, receiver);
      if (read.has(key)) return later;
      read.add(key);
      return Reflect.get(t, key, receiver);
    },
  });
  firstReads.set(proxy, copy as Record<string, unknown>);
  return proxy;
}
/** `value` with one spot (itself, a key, or an element, at most two levels down) changing to `later` after its first read. */
function changingAt(value: unknown, later: unknown, pick: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  if (keys.length === 0 || pick % 4 === 0) return changingProxy(value, later);
  const key = keys[pick % keys.length]!;
  const inner = (value as Record<string, unknown>)[key];
  const first = typeof inner === 'object' && inner !== null && pick % 3 === 0 ? changingAt(inner, later, Math.floor(pick / 7)) : inner;
  return withChangingKey(value, key, first, later);
}

const hostileString = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('\uD800', '\uDC00', '\u0000', 'a', ' ', '\n'), maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_STRINGS) },
);
const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '', '\u0000', 'text', 'id', 'userId'), fc.string({ maxLength: 8 }));
const odd = fc.constantFrom<() => unknown>(
  () => NaN, () => Infinity, () => -Infinity, () => -0, () => 1e308, () => 2 ** 53 + 2, () => -1, () => 0.5,
  () => null, () => undefined, () => true, () => false, () => 10n, () => Symbol('s'), () => () => 1,
  () => new Date(NaN), () => new Date(0), () => /x/g, () => new Map([[1, 2]]), () => new Set([1]), () => new Uint8Array(4),
  () => new ArrayBuffer(8), () => new Blob(['x']), () => Object.create(null), () => [], () => ({}), () => [[[[]]]],
  () => deep(50), () => deep(3_000), () => deep(100_000), () => cyclic(), () => throwingGetter(), () => throwingProxy(),
  () => new Array(300_000).fill('x'), () => new Array(1_000_000), () => Array.from({ length: 60 }, (_, i) => `t${i}`),
  () => JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}'),
  () => Promise.resolve('later'), () => new Error('an error object'),
  () => withChangingKey({}, 'k', 1, 10n), () => withChangingKey({}, 'k', 'short', 'y'.repeat(200_000)), () => withChangingKey({}, 'k', 'ok', () => 1),
  () => changingProxy([0.5, 0.25], NaN), () => changingProxy({ k: 'v' }, Symbol('later')),
  () => Object.assign([1, 2], { extra: () => 'not data' }),
).map((make) => make());

const hostile: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: odd },
    { weight: 4, arbitrary: hostileString },
    { weight: 2, arbitrary: fc.oneof(fc.double(), fc.integer()) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => entries.reduce<object>((o, [k, v]) => withKey(o, k, v), {})) },
  ),
})).value;

/**
 * A valid input, or one with a single field replaced, removed, added, given
 * as explicit `undefined` (alone or among the valid fields), or valid on its
 * first read and hostile after (a getter or a Proxy, possibly nested).
 */
function nearValid(base: Record<string, unknown>, extraKeys: string[] = ['colour', '__proto__', 'constructor']): fc.Arbitrary<unknown> {
  const keys = Object.keys(base);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(base) },
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...keys), hostile).map(([k, v]) => withKey(base, k, v)) },
    { weight: 1, arbitrary: fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(base).filter(([key]) => key !== k))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...extraKeys), hostile).map(([k, v]) => withKey(base, k, v)) },
    { weight: 1, arbitrary: fc.constantFrom(...keys).map((k) => withKey(base, k, undefined)) },
    { weight: 1, arbitrary: fc.subarray(keys, { minLength: 1 }).map((ks) => ks.reduce<object>((o, k) => withKey(o, k, undefined), {})) },
    { weight: 2, arbitrary: fc.tuple(hostile, fc.nat()).map(([later, pick]) => changingAt(base, later, pick)) },
    { weight: 1, arbitrary: hostile },
  );
}
const idArg = fc.oneof({ weight: 2, arbitrary: fc.constantFrom('e1', 'f1', 'e2', 'nope', 'e1#1', '\uffff', 'a'.repeat(200)) }, { weight: 3, arbitrary: hostile });
const userArg = fc.oneof(fc.constantFrom('default', 'fuzz', 'other'), hostile);
const noArgs = fc.array(hostile, { maxLength: 2 });

// ---------- the store, keyed by record ----------

type Lines = Map<string, string>;

/** The export as key → line (key: kind and id), without the header and closing line. */
async function lines(memory: Memory): Promise<Lines> {
  const text = await (await memory.export()).text();
  const out: Lines = new Map();
  for (const line of text.trim().split('\n').slice(1, -1)) out.set(keyOf(JSON.parse(line)), line);
  return out;
}
function keyOf(line: { kind: string; id?: string; record?: { id?: string; userId?: string } }): string {
  if (line.kind === 'vector') return `vector:${line.id}`;
  if (line.kind === 'profile') return `profile:${line.record!.userId}`;
  return `${line.kind}:${line.record!.id}`;
}
/** Lines parsed, for comparisons where key order within a record does not matter. */
const parsedLines = (lines: Lines) => new Map([...lines].map(([k, l]) => [k, JSON.parse(l) as unknown]));
function diff(before: Lines, after: Lines): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k));
}
const record = (line: string | undefined) => (line ? (JSON.parse(line) as { record?: Record<string, unknown> }).record : undefined);
/** Lines of one user (by `userId` on the line or its record), plus the steps of that user's tasks. */
function ownedBy(lines: Lines, userId: unknown): (key: string) => boolean {
  const taskIds = [...lines].filter(([k, l]) => k.startsWith('task:') && record(l)?.userId === userId).map(([k]) => k.slice(5));
  return (key) => {
    const line = lines.get(key);
    if (!line) return false;
    const parsed = JSON.parse(line) as { userId?: string; record?: { userId?: string } };
    return (parsed.userId ?? parsed.record?.userId) === userId || taskIds.some((t) => key.startsWith(`step:${t}#`));
  };
}

// ---------- the stored records' shape ----------

/*
 * After every successful write, each record it changed is read back through
 * the public API and must have exactly its schema's shape: no missing, extra
 * or `undefined` field, no value a later recall, export or import would choke
 * on. Memories use the record schemas; tasks, steps and patterns have no
 * record schema in src/schema yet, so their shapes are written here.
 */
const finite = z.number();
const taskRecordShape = z.strictObject({
  id: z.string().check(z.minLength(1)), userId: z.string().check(z.minLength(1)), description: z.string(), type: z.string().check(z.minLength(1)), context: z.strictObject(builtSchema(taskContextSchema).shape),
  status: z.enum(['running', 'completed']), startedAt: timestampSchema, completedAt: z.nullable(timestampSchema), stepCount: z.number().check(z.int(), z.gte(0)),
  outcome: z.nullable(taskOutcomeSchema),
  reward: z.nullable(z.record(z.string(), finite)),
  reflection: z.nullable(z.strictObject({ successes: z.array(z.string()), improvements: z.array(z.string()), insights: z.array(z.string()) })),
  patternIds: z.array(z.string().check(z.minLength(1))), metadata: metadataSchema,
});
const stepRecordShape = z.strictObject({ ...builtSchema(stepInputSchema).shape, id: z.string().check(z.minLength(1)), taskId: z.string().check(z.minLength(1)), index: z.number().check(z.int(), z.gte(1)), at: timestampSchema });
const patternRecordShape = z.strictObject({
  id: z.string().check(z.minLength(1)), userId: z.string().check(z.minLength(1)), kind: z.enum(['tool-sequence', 'error-recovery', 'decision-point', 'context']), description: z.string(),
  tools: z.array(z.string()), domain: z.string(), language: z.nullable(z.string()), occurrences: z.number().check(z.int(), z.gte(1)), successRate: z.number().check(z.gte(0), z.lte(1)),
  confidence: finite, evidenceTaskIds: z.array(z.string().check(z.minLength(1))), createdAt: timestampSchema, updatedAt: timestampSchema,
});
const profileShape = z.strictObject({ ...builtSchema(profileFieldsSchema).shape, userId: z.string().check(z.minLength(1)), goals: z.array(z.string()), extra: z.record(tagSchema, z.string()), updatedAt: z.nullable(timestampSchema) });

/** Why the stored record behind export key `key` is malformed, or undefined when it is whole. */
async function shapeProblem(memory: Memory, key: string, line: string, dimension: number): Promise<string | undefined> {
  const id = key.slice(key.indexOf(':') + 1);
  const check = (schema: z.ZodMiniType, value: unknown) => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) return `${key} is malformed: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
    return hasUndefined(value) ? `${key} holds an undefined value` : undefined;
  };
  if (key.startsWith('episode:')) return check(z.strictObject(builtSchema(episodeRecordSchema).shape), await memory.episodes.get(id));
  if (key.startsWith('fact:')) return check(z.strictObject(builtSchema(factRecordSchema).shape), await memory.facts.get(id));
  if (key.startsWith('turn:')) return check(z.strictObject(builtSchema(turnRecordSchema).shape), await memory.turns.get(id));
  if (key.startsWith('profile:')) return check(profileShape, await memory.profile.get(id));
  if (key.startsWith('pattern:')) return check(patternRecordShape, (JSON.parse(line) as { record: unknown }).record);
  if (key.startsWith('task:')) {
    const { steps, ...task } = await memory.tasks.get(id);
    return check(taskRecordShape, task) ?? steps.map((step) => check(stepRecordShape, step)).find(Boolean);
  }
  if (key.startsWith('step:')) return check(stepRecordShape, (JSON.parse(line) as { record: unknown }).record);
  if (key.startsWith('vector:')) {
    const bytes = Buffer.from((JSON.parse(line) as { vector: string }).vector, 'base64');
    const vector = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    if (vector.length !== dimension || !vector.every(Number.isFinite) || Math.abs(norm - 1) > 1e-3) return `${key} is not a finite unit vector of ${dimension} numbers (norm ${norm})`;
  }
  return undefined;
}
function hasUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return false;
  return Object.values(value).some(hasUndefined);
}

// ---------- the methods ----------

interface Fuzzed {
  name: string;
  args: fc.Arbitrary<unknown[]>;
  call: (m: Memory, args: unknown[]) => unknown;
  /**
   * For methods that may write: which keys a successful call is allowed to
   * change (and, via `mustHold`, what must be true after it). Absent: the
   * method must never change the store.
   */
  writes?: (args: unknown[], result: unknown, before: Lines) => (key: string) => boolean;
  mustHold?: (args: unknown[], result: unknown, after: Lines, before: Lines) => string | undefined;
  /** What a failed call may still have changed (only the setup a call does before the fuzzed part). */
  writesOnFailure?: (key: string, before: Lines) => boolean;
}

const any = <T,>(v: T) => v as never;
/**
 * The keys a patch gives as explicit `undefined` (read from the property
 * descriptors, so no getter runs): the stored record must keep its old value
 * for each of them, as if the key were absent.
 */
function undefinedKeysKept(recordKey: (args: unknown[]) => string, patchAt = 1) {
  return (args: unknown[], _result: unknown, after: Lines, before: Lines): string | undefined => {
    const patch = args[patchAt];
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return undefined;
    let given: string[];
    try {
      // A Proxy without descriptor traps answers from its target: no trap that changes values runs.
      given = Object.entries(Object.getOwnPropertyDescriptors(patch)).filter(([, d]) => 'value' in d && d.value === undefined).map(([k]) => k);
    } catch {
      return undefined;
    }
    const old = record(before.get(recordKey(args)));
    const now = record(after.get(recordKey(args)));
    const changed = given.filter((k) => JSON.stringify(old?.[k]) !== JSON.stringify(now?.[k]) || (k in (old ?? {})) !== (k in (now ?? {})));
    return changed.length ? `{ ${changed.join(', ')}: undefined } changed the stored value` : undefined;
  };
}

const idsOf = (result: unknown): string[] => (Array.isArray(result) ? result : [result]).map((r) => (r as { id: string }).id);
const about = (ids: string[]) => (key: string) => ids.some((id) => key === `episode:${id}` || key === `fact:${id}` || key === `turn:${id}` || key === `vector:${id}`);

const episodeBase = { text: 'Fuzz episode about the garden shed', userId: 'fuzz', tags: ['garden'], importance: 0.3, metadata: { room: 'shed' }, sessionId: 's1', parentId: null };
const factBase = { text: 'The user likes tomatoes', userId: 'fuzz', category: 'preference', tags: ['food'], importance: 0.4, metadata: { source: 'fuzz' } };
const taskContext = { language: 'typescript', complexity: 'simple', domain: 'web', tags: ['x'] };
const taskBase = { description: 'Fix the login bug', type: 'debugging', context: taskContext, metadata: { ticket: 7 }, userId: 'fuzz' };
const stepBase = { tool: 'edit_file', action: 'edit', parameters: { path: 'a.ts' }, result: { kind: 'success', output: 'ok' }, latencyMs: 12, tokens: 3, metadata: { n: 1 } };
const listBase = { userId: 'default', limit: 5, offset: 0, tags: ['garden'], since: 0, until: NOW * 2, filter: { room: 'shed' }, order: 'asc' };
const recallBase = { userId: 'default', k: 3, types: ['episode', 'fact'], tags: ['garden'], since: 0, until: NOW * 2, filter: { room: ['shed', 'attic'] }, includeArchived: true, touch: true };

let exportText = '';
let running: Task | undefined;

const methods: Fuzzed[] = [
  {
    name: 'episodes.add',
    args: fc.tuple(nearValid(episodeBase)),
    call: (m, [input]) => m.episodes.add(any(input)),
    writes: (_, result) => about(idsOf(result)),
    mustHold: (_, result, after) => (after.has(`episode:${idsOf(result)[0]}`) ? undefined : 'the added episode is not stored'),
  },
  { name: 'episodes.get', args: fc.tuple(idArg), call: (m, [id]) => m.episodes.get(any(id)) },
  { name: 'episodes.list', args: fc.tuple(nearValid({ ...listBase, sessionId: 's1', parentId: null, participants: ['Ana'], outcomeStatus: ['unknown'], state: ['active'] })), call: (m, [q]) => m.episodes.list(any(q)) },
  {
    name: 'episodes.update',
    // Every field a patch may carry, so explicit `undefined` and late-changing values reach each of them.
    args: fc.tuple(idArg, nearValid({
      text: 'Updated episode about the shed roof', goal: 'Fix the roof', context: 'It leaks', approach: 'New tiles', outcome: 'Dry', lessons: 'Check in autumn',
      quality: 'success', tags: ['roof'], actors: ['Ana'], participants: ['Ana'], toolsUsed: ['ladder'], entities: ['shed'], keyDecisions: ['tiles'],
      outcomeStatus: 'success', importance: 0.9, pinned: true, provenance: 'trusted', parentId: null, state: 'summarized', metadata: { k: 1 }, endedAt: NOW,
    })),
    call: (m, [id, patch]) => m.episodes.update(any(id), any(patch)),
    writes: ([id]) => about([id as string]),
    mustHold: undefinedKeysKept(([id]) => `episode:${id}`),
  },
  {
    name: 'episodes.delete',
    args: fc.tuple(idArg),
    call: (m, [id]) => m.episodes.delete(any(id)),
    // Children of a deleted episode are re-linked to its parent.
    writes: ([id], _, before) => (key) => about([id as string])(key) || record(before.get(key))?.parentId === id,
    mustHold: ([id], _, after) => (after.has(`episode:${id}`) ? 'the deleted episode is still stored' : undefined),
  },
  { name: 'episodes.chain', args: fc.tuple(idArg), call: (m, [id]) => m.episodes.chain(any(id)) },
  { name: 'episodes.children', args: fc.tuple(idArg), call: (m, [id]) => m.episodes.children(any(id)) },
  {
    name: 'episodes.sequence',
    args: fc.tuple(fc.oneof(fc.constant('garden shed'), hostileString, hostile), nearValid({ userId: 'default', limit: 3, minRelevance: 0.1, includeArchived: false })),
    call: (m, [topic, o]) => m.episodes.sequence(any(topic), any(o)),
  },
  {
    name: 'facts.add',
    args: fc.tuple(nearValid(factBase)),
    // Raw inserts: merging changes the near-identical fact too, which engine-guarantees.test.ts covers.
    call: (m, [input]) => m.facts.add(any(input), { merge: false }),
    writes: (_, result) => about(idsOf(result)),
    mustHold: (_, result, after) => (after.has(`fact:${idsOf(result)[0]}`) ? undefined : 'the added fact is not stored'),
  },
  {
    name: 'facts.addMany',
    args: fc.tuple(fc.oneof(fc.array(nearValid(factBase), { maxLength: 4 }), hostile)),
    call: (m, [inputs]) => m.facts.addMany(any(inputs)),
    writes: (_, result) => about(idsOf(result)),
  },
  { name: 'facts.get', args: fc.tuple(idArg), call: (m, [id]) => m.facts.get(any(id)) },
  { name: 'facts.list', args: fc.tuple(nearValid({ ...listBase, category: ['preference'], includeRetired: true })), call: (m, [q]) => m.facts.list(any(q)) },
  {
    name: 'facts.update',
    args: fc.tuple(idArg, nearValid({ text: 'The user loves cherry tomatoes', category: 'preference', importance: 0.7, pinned: true, tags: ['t'], metadata: { m: 2 } })),
    call: (m, [id, patch]) => m.facts.update(any(id), any(patch)),
    writes: ([id]) => about([id as string]),
    mustHold: undefinedKeysKept(([id]) => `fact:${id}`),
  },
  {
    name: 'facts.delete',
    args: fc.tuple(idArg),
    call: (m, [id]) => m.facts.delete(any(id)),
    writes: ([id]) => about([id as string]),
  },
  { name: 'facts.history', args: fc.tuple(idArg), call: (m, [id]) => m.facts.history(any(id)) },
  {
    name: 'tasks.start',
    args: fc.tuple(nearValid(taskBase)),
    call: (m, [input]) => m.tasks.start(any(input)),
    writes: (_, result) => (key) => key === `task:${(result as Task).id}`,
  },
  { name: 'tasks.get', args: fc.tuple(idArg), call: (m, [id]) => m.tasks.get(any(id)) },
  { name: 'tasks.list', args: fc.tuple(nearValid({ userId: 'fuzz', limit: 3 })), call: (m, [o]) => m.tasks.list(any(o)) },
  {
    name: 'tasks.relevant',
    args: fc.tuple(nearValid({ description: 'login bug', context: { domain: 'web' } }), nearValid({ k: 2, userId: 'fuzz' })),
    call: (m, [q, o]) => m.tasks.relevant(any(q), any(o)),
  },
  { name: 'tasks.stats', args: fc.tuple(nearValid({ userId: 'fuzz' })), call: (m, [o]) => m.tasks.stats(any(o)) },
  {
    name: 'task.log',
    args: fc.tuple(nearValid(stepBase)),
    // Buffered: nothing is written until flush() (auto-flush is off in this memory).
    call: (_, [step]) => running!.log(any(step)),
  },
  {
    name: 'task.flush',
    args: noArgs,
    call: () => running!.flush(),
    writes: () => (key) => key === `task:${running!.id}` || key.startsWith(`step:${running!.id}#`),
  },
  {
    name: 'task.complete',
    args: fc.tuple(fc.oneof(
      nearValid({ kind: 'success', verdict: 'fixed', artifacts: ['a.ts'] }),
      nearValid({ kind: 'partial', verdict: 'half', completed: ['a'], failed: ['b'] }),
      nearValid({ kind: 'abstained', atStep: 0, reason: 'unsure' }),
    )),
    call: async (m, [outcome]) => {
      // A fresh running task per input; its start is part of the "before" state.
      const task = await m.tasks.start({ description: 'Fuzzed completion', type: 'other', context: { complexity: 'simple', domain: 'fuzz', tags: [] }, userId: 'fuzz' });
      return task.complete(any(outcome));
    },
    writes: () => (key) => key.startsWith('task:') || key.startsWith('pattern:') || key.startsWith('step:'),
    writesOnFailure: (key, before) => key.startsWith('task:') && !before.has(key),
  },
  { name: 'patterns.relevant', args: fc.tuple(nearValid({ domain: 'web', language: 'typescript', tags: ['x'] }), nearValid({ k: 2, userId: 'fuzz' })), call: (m, [c, o]) => m.patterns.relevant(any(c), any(o)) },
  { name: 'profile.get', args: fc.tuple(userArg), call: (m, [u]) => m.profile.get(any(u)) },
  {
    name: 'profile.update',
    args: fc.tuple(userArg, nearValid({ name: 'Ana', city: 'Porto', timeZone: 'Europe/Lisbon', goals: ['run a marathon'], extra: { pet: 'cat' }, language: 'pt', preferredTone: 'brief' })),
    call: (m, [u, patch]) => m.profile.update(any(u), any(patch)),
    writes: ([u]) => (key) => key === `profile:${u}`,
    mustHold: (args, result, after, before) => {
      // The profile line holds the fields under `fields`; compare those.
      const fields = (lines: Lines) => new Map([...lines].map(([k, l]) => [k, JSON.stringify({ record: (JSON.parse(l) as { record?: { fields?: unknown } }).record?.fields ?? {} })]));
      return undefinedKeysKept(([u]) => `profile:${u}`)(args, result, fields(after), fields(before));
    },
  },
  { name: 'profileLine', args: fc.tuple(userArg), call: (m, [u]) => m.profileLine(any(u)) },
  {
    name: 'observe',
    args: fc.tuple(nearValid({ userId: 'fuzz', sessionId: 's1', user: 'I moved to Porto', assistant: 'Nice city!' })),
    // No LLM is configured: observe validates, reports `no_llm` and keeps the exchange as turns (new ids, of the input's user).
    call: (m, [input]) => m.observe(any(input)),
    writes: (_, result, before) => (key) => !before.has(key) && (key.startsWith('turn:') || key.startsWith('vector:')),
    mustHold: (_, result, after, before) => {
      const added = [...after.keys()].filter((k) => k.startsWith('turn:') && !before.has(k)).length;
      return added === (result as { turns: { stored: number } }).turns.stored ? undefined : `observe reported ${(result as { turns: { stored: number } }).turns.stored} turns, stored ${added}`;
    },
  },
  {
    name: 'turns.add',
    args: fc.tuple(nearValid({ text: 'We talked about the garden shed roof', speaker: 'user', userId: 'fuzz', sessionId: 's1', tags: ['garden'], metadata: { room: 'shed' } })),
    call: (m, [input]) => m.turns.add(any(input)),
    writes: (_, result) => about(idsOf(result)),
    mustHold: (_, result, after) => (after.has(`turn:${idsOf(result)[0]}`) ? undefined : 'the added turn is not stored'),
  },
  { name: 'turns.list', args: fc.tuple(nearValid({ userId: 'fuzz', sessionId: 's1', order: 'asc', limit: 5 })), call: (m, [q]) => m.turns.list(any(q)) },
  { name: 'recall', args: fc.tuple(fc.oneof(fc.constant('garden shed'), hostileString, hostile), nearValid(recallBase)), call: (m, [q, o]) => m.recall(any(q), any(o)) },
  {
    name: 'formatContext',
    args: fc.tuple(
      fc.oneof(fc.constant('hits'), fc.array(fc.oneof(fc.constant('hit'), hostile), { maxLength: 3 }), hostile),
      nearValid({ now: NOW, timeZone: 'Europe/Lisbon', profileLine: 'Profile: Ana' }),
    ),
    call: async (m, [hits, o]) => {
      const real = await m.recall('garden', { touch: false });
      const h = hits === 'hits' ? real : Array.isArray(hits) ? hits.map((x) => (x === 'hit' ? real[0] ?? x : x)) : hits;
      return m.formatContext(any(h), any(o));
    },
  },
  {
    name: 'formatReplay',
    args: fc.tuple(fc.oneof(fc.constant('episodes'), fc.array(fc.oneof(fc.constant('episode'), hostile), { maxLength: 3 }), hostile), nearValid({ timeZone: 'UTC' })),
    call: async (m, [eps, o]) => {
      const real = await m.episodes.list({ limit: 3 });
      const e = eps === 'episodes' ? real : Array.isArray(eps) ? eps.map((x) => (x === 'episode' ? real[0] ?? x : x)) : eps;
      return m.formatReplay(any(e), any(o));
    },
  },
  { name: 'prune', args: fc.tuple(nearValid({ userId: 'fuzz' })), call: (m, [o]) => m.prune(any(o)), writes: (_, result) => about((result as { evicted: string[] }).evicted) },
  {
    name: 'forget',
    args: fc.tuple(nearValid({ userId: 'other' })),
    call: (m, [o]) => m.forget(any(o)),
    writes: ([o], _, before) => ownedBy(before, firstRead(o, 'userId')),
  },
  { name: 'export', args: fc.tuple(nearValid({ userId: 'default', vectors: false })), call: (m, [o]) => m.export(any(o)) },
  {
    name: 'import',
    args: fc.tuple(fc.oneof(
      { weight: 1, arbitrary: fc.constant('valid') },
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, x]) => ['flip', at, x] as const) },
      { weight: 2, arbitrary: fc.nat().map((at) => ['cut', at] as const) },
      { weight: 3, arbitrary: hostile },
    )),
    call: (m, [how]) => {
      if (how === 'valid') return m.import(exportText);
      if (Array.isArray(how) && how[0] === 'flip') {
        const bytes = new TextEncoder().encode(exportText);
        bytes[(how[1] as number) % bytes.length]! ^= how[2] as number;
        return m.import(bytes);
      }
      if (Array.isArray(how) && how[0] === 'cut') return m.import(exportText.slice(0, (how[1] as number) % exportText.length));
      return m.import(any(how));
    },
    // The prepared export holds the seed records of users "default" and "other".
    writes: () => (key) => key.endsWith(':e1') || key.endsWith(':f1') || key.endsWith(':o1') || key === 'profile:default',
  },
  { name: 'activity', args: fc.tuple(nearValid({ limit: 5 })), call: (m, [o]) => m.activity(any(o)) },
  { name: 'idle', args: noArgs, call: (m, args) => (m.idle as (...a: unknown[]) => Promise<void>)(...args) },
  { name: 'info', args: noArgs, call: (m, args) => (m.info as (...a: unknown[]) => Promise<unknown>)(...args) },
  {
    name: 'on',
    args: fc.tuple(fc.oneof(fc.constantFrom('episode', 'change', 'dedup', 'eviction', 'job', 'extraction'), hostile), fc.oneof(fc.constant('listener'), hostile)),
    call: (m, [type, listener]) => {
      const off = m.on(any(type), any(listener === 'listener' ? () => undefined : listener));
      off();
    },
  },
];

// ---------- the run ----------

/** Every memory the tests open is closed after its test, also one a failed check left open. */
const memories = memoryFixture();

/**
 * A fresh IndexedDB that counts the readwrite transactions opened on it.
 * IndexedDB changes only inside one: when none was opened since the store's
 * last snapshot, the store is exactly as it was, and the snapshot (an export
 * of everything) need not be taken again. Most generated calls are refused
 * before they write anything; exporting the whole store after each of them
 * was most of this file's time.
 */
function countingIndexedDB(): { factory: ReturnType<typeof freshIndexedDB>; writes: () => number } {
  const factory = freshIndexedDB();
  let writes = 0;
  const openDatabase = factory.indexedDB.open.bind(factory.indexedDB);
  factory.indexedDB.open = (name: string, version?: number) => {
    const request = openDatabase(name, version);
    // Registered before Dexie's handler, so the database is wrapped before Dexie uses it.
    request.addEventListener('success', () => {
      const db = request.result;
      const transaction = db.transaction.bind(db);
      db.transaction = ((stores: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) => {
        if (mode === 'readwrite') writes++;
        return transaction(stores, mode, options);
      }) as typeof db.transaction;
    });
    return request;
  };
  return { factory, writes: () => writes };
}

/** Runs a property without shrinking and fails with a short report (inputs can be megabytes long). */
async function check<T>(property: fc.IAsyncProperty<T>, seed: number, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed, numRuns, endOnFailure: true });
  if (!details.failed) return;
  const input = fc.stringify(details.counterexample).slice(0, 600);
  const cause = (details.errorInstance as Error)?.message?.slice(0, 600) ?? String(details.errorInstance);
  throw new Error(`seed ${seed}, run ${details.numRuns}: ${cause}\n  input: ${input}`);
}

function typed(error: unknown): string | undefined {
  if (error instanceof EngramError && typeof error.code === 'string' && error.message.length > 0) return undefined;
  return `escaped an untyped ${(error as Error)?.name ?? typeof error}: ${(error as Error)?.message ?? String(error)}`.slice(0, 500);
}

describe('hostile input: every public method either succeeds or rejects with a typed error', () => {
  const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const counts = { calls: 0, succeeded: 0, rejected: 0, shapeChecks: 0, byCode: {} as Record<string, number> };
  let dimension = 0;
  const options = { clock: () => NOW, lifecycle: { dedupThreshold: 0, maxEpisodes: 100_000 }, tasks: { flushAt: 1000, flushIntervalMs: 3_600_000 } };
  afterAll(() => {
    console.log(`fuzz: ${counts.calls} generated calls, ${counts.succeeded} succeeded, ${counts.rejected} rejected with typed errors ${JSON.stringify(counts.byCode)}; ${counts.shapeChecks} stored records read back and shape-checked`);
  });

  it('prepare the seed export', async () => {
    dimension = (await realEmbedder()).dimension;
    const source = await memories.open({ clock: () => NOW });
    await source.episodes.add({ id: 'e1', text: 'Seed episode about the garden shed', tags: ['garden'], metadata: { room: 'shed' } });
    await source.facts.add({ id: 'f1', text: 'The user grows tomatoes in the garden' });
    await source.facts.add({ id: 'o1', userId: 'other', text: 'Another user likes chess' });
    await source.profile.update('default', { name: 'Ana', city: 'Porto' });
    exportText = await (await source.export()).text();
    await source.close();
  });

  // Each method gets its own store, seeded from the export, so snapshots stay small and a failure names one method.
  for (const [index, method] of methods.entries()) {
    it(method.name, async () => {
      const counting = countingIndexedDB();
      const database = { ...counting.factory, name: `fuzz-${index}` };
      const memory = await memories.open({ ...database, ...options });
      await memory.import(exportText);
      running = await memory.tasks.start({ description: 'A task the fuzzer logs steps into', type: 'testing', context: { complexity: 'simple', domain: 'fuzz', tags: [] } });
      let writesAtSnapshot = counting.writes();
      let current = await lines(memory);
      await check(
        fc.asyncProperty(method.args, async (args) => {
          counts.calls++;
          let result: unknown;
          let error: unknown;
          let failed = false;
          try {
            result = await method.call(memory, args);
          } catch (e) {
            failed = true;
            error = e;
          }
          if (failed) {
            const problem = typed(error);
            if (problem) throw new Error(`${method.name}: ${problem}`);
            counts.rejected++;
            const code = (error as EngramError).code;
            counts.byCode[code] = (counts.byCode[code] ?? 0) + 1;
          } else counts.succeeded++;
          if (!method.writes) return;
          // No readwrite transaction since the last snapshot: nothing can have changed.
          const unchanged = counting.writes() === writesAtSnapshot;
          writesAtSnapshot = counting.writes();
          const after = unchanged ? current : await lines(memory);
          const before = current;
          const changed = diff(before, after).filter((k) => !(failed && method.writesOnFailure?.(k, before)));
          if (failed && changed.length) {
            throw new Error(`${method.name} failed (${(error as Error).message.slice(0, 200)}) yet changed ${changed.slice(0, 5).join(', ')}`);
          }
          if (!failed) {
            const allowed = method.writes(args, result, before);
            const stray = changed.filter((k) => !allowed(k));
            if (stray.length) throw new Error(`${method.name} changed records it was not about: ${stray.slice(0, 5).join(', ')}`);
            const broken = method.mustHold?.(args, result, after, before);
            if (broken) throw new Error(`${method.name}: ${broken}`);
            for (const key of changed.filter((k) => after.has(k))) {
              counts.shapeChecks++;
              const problem = await shapeProblem(memory, key, after.get(key)!, dimension);
              if (problem) throw new Error(`${method.name} stored a malformed record: ${problem}`);
            }
          }
          current = after;
        }),
        SEED + index,
        RUNS,
      );
      // Reads in between changed nothing either, and the store is whole: every current record has its vector, nothing else does.
      expect(diff(current, await lines(memory))).toEqual([]);
      const vectors = [...current.keys()].filter((k) => k.startsWith('vector:')).sort();
      const searchable = [...current.keys()].filter((k) => k.startsWith('episode:') || k.startsWith('turn:') || (k.startsWith('fact:') && record(current.get(k))?.status === 'current'));
      expect(vectors).toEqual(searchable.map((k) => `vector:${k.slice(k.indexOf(':') + 1)}`).sort());
      expect((await memory.info()).indexed).toBe(vectors.length);
      // And it persisted: a reopened memory reads exactly the same.
      await memory.close();
      const reopened = await memories.open({ ...database, ...options });
      expect(diff(current, await lines(reopened))).toEqual([]);
      // What the store holds still works: a tags-filtered recall scores every hit, and the store's own export imports whole.
      for (const userId of ['default', 'fuzz']) {
        const hits = await reopened.recall('garden shed roof tomatoes', { userId, tags: ['garden', 'roof', 'food', 't'], touch: false });
        expect(hits.every((hit) => Number.isFinite(hit.score))).toBe(true);
      }
      const copy = await memories.open({ ...freshIndexedDB(), ...options, name: `fuzz-copy-${index}` });
      await copy.import(await reopened.export());
      expect(parsedLines(await lines(copy))).toEqual(parsedLines(current));
      await copy.close();
      await reopened.close();
    }, 240_000);
  }

  it('at least 10,000 generated calls in all, and Object.prototype is not polluted', () => {
    expect(counts.calls).toBeGreaterThanOrEqual(10_000);
    expect(counts.shapeChecks).toBeGreaterThanOrEqual(500);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('hostile options: createMemory and close', () => {
  it('createMemory either opens a memory or rejects with a typed error', async () => {
    const embedder = await realEmbedder();
    let calls = 0;
    await check(
      fc.asyncProperty(
        nearValid({ name: 'fuzz-open', worker: false, lifecycle: { maxEpisodes: 5 }, ranking: {}, extraction: { timeoutMs: 1000 }, facts: { minImportance: 0.2 }, capture: {}, tasks: { flushAt: 5 }, clock: () => NOW }),
        async (options) => {
          calls++;
          let full: unknown = options;
          try {
            if (typeof options === 'object' && options !== null && !Array.isArray(options)) full = { ...freshIndexedDB(), embedder, ...options };
          } catch {
            // A throwing getter: hand createMemory the object itself.
          }
          let memory: Memory | undefined;
          try {
            memory = await createMemory(any(full));
          } catch (error) {
            const problem = typed(error);
            if (problem) throw new Error(`createMemory: ${problem}`);
            return;
          }
          await memory.close();
        },
      ),
      SEED,
      150,
    );
    expect(calls).toBe(150);
  });

  it('close rejects bad options with a typed error and closes on good ones', async () => {
    let memory = await memories.open();
    await check(
      fc.asyncProperty(fc.oneof(nearValid({ timeoutMs: 100 }), hostile), async (options) => {
        try {
          await memory.close(any(options));
        } catch (error) {
          const problem = typed(error);
          if (problem) throw new Error(`close: ${problem}`);
          return;
        }
        memory = await memories.open();
      }),
      SEED,
      100,
    );
    await memory.close();
  });
});
