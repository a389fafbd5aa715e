import { describe, expect, it } from 'vitest';
import { AbortError, ClosedError, Memory, Task, ValidationError } from '../../src/index.js';
import type { EngineParts } from '../../src/engine/parts.js';
import { CallAborts } from '../../src/jobs/call-aborts.js';
import { CallTracker } from '../../src/jobs/call-tracker.js';
import { runOperation } from '../../src/engine/dispatch.js';
import { defineOperation, type AnyOperation } from '../../src/operations/operation.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { profileOf } from '../../src/schema/profile.js';
import { Emitter } from '../../src/telemetry/emitter.js';
import { builtSchema } from '../../src/schema/lazy-schema.js';
import type * as z from 'zod/mini';

/**
 * The operation table (src/operations/) is the one definition of every
 * public operation. These tests hold `Memory` to it with an engine that only
 * records what reaches it: each call's method, its parsed arguments and its
 * call id.
 */
interface Sent {
  method: string;
  args: unknown[];
  callId?: string;
}

/** Answers for the methods whose result the facade reads. */
const replies: Record<string, unknown> = {
  'tasks.start': { id: 't1', userId: 'default', description: 'd' },
  'profile.get': profileOf('default', undefined, null),
};

function recordingMemory(pending: Set<string> = new Set()): { memory: Memory; sent: Sent[]; aborted: [string, string][] } {
  const sent: Sent[] = [];
  const aborted: [string, string][] = [];
  const engine = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === 'abortCall') return (callId: string, reason: string) => void aborted.push([callId, reason]);
        return (args: unknown[], callId?: string) => {
          sent.push({ method: String(key), args, ...(callId === undefined ? {} : { callId }) });
          return pending.has(String(key)) ? new Promise(() => undefined) : Promise.resolve(replies[String(key)]);
        };
      },
    },
  );
  const connection = { engine, shutdown: async () => undefined };
  const memory = Reflect.construct(Memory, [connection, new Emitter(), { flushAt: 50, flushIntervalMs: 60_000 }]) as Memory;
  return { memory, sent, aborted };
}

type Call = (m: Memory) => Promise<unknown>;

/** One valid call of every public method that reaches the engine, by the operation it must send (none pass a user). */
const calls: Record<string, Call> = {
  'episodes.add': (m) => m.episodes.add({ text: 'x' }),
  'episodes.get': (m) => m.episodes.get('e1'),
  'episodes.list': (m) => m.episodes.list(),
  'episodes.update': (m) => m.episodes.update('e1', { text: 'y' }),
  'episodes.delete': (m) => m.episodes.delete('e1'),
  'episodes.chain': (m) => m.episodes.chain('e1'),
  'episodes.sequence': (m) => m.episodes.sequence('topic'),
  'episodes.children': (m) => m.episodes.children('e1'),
  'episodes.close': (m) => m.episodes.close('e1'),
  'facts.add': (m) => m.facts.add({ text: 'x' }),
  'facts.addMany': (m) => m.facts.addMany([{ text: 'x' }]),
  'facts.get': (m) => m.facts.get('f1'),
  'facts.list': (m) => m.facts.list(),
  'facts.update': (m) => m.facts.update('f1', { text: 'y' }),
  'facts.delete': (m) => m.facts.delete('f1'),
  'facts.history': (m) => m.facts.history('f1'),
  'turns.add': (m) => m.turns.add({ speaker: 'user', text: 'x' }),
  'turns.addMany': (m) => m.turns.addMany([{ speaker: 'user', text: 'x' }]),
  'turns.get': (m) => m.turns.get('t1'),
  'turns.list': (m) => m.turns.list(),
  'turns.delete': (m) => m.turns.delete('t1'),
  'tasks.start': (m) => m.tasks.start({ description: 'd', type: 'other', context: { complexity: 'simple', domain: 'web' } }),
  'tasks.get': (m) => m.tasks.get('t1'),
  'tasks.list': (m) => m.tasks.list(),
  'tasks.relevant': (m) => m.tasks.relevant({ description: 'd' }),
  'tasks.stats': (m) => m.tasks.stats(),
  'patterns.relevant': (m) => m.patterns.relevant({}),
  'profile.get': (m) => m.profile.get(),
  'profile.update': (m) => m.profile.update('u', {}),
  observe: (m) => m.observe({ user: 'hi', assistant: 'hello' }),
  activity: (m) => m.activity(),
  recall: (m) => m.recall('q'),
  prune: (m) => m.prune(),
  forget: (m) => m.forget({ userId: 'u' }),
  export: (m) => m.export(),
  import: (m) => m.import('{}'),
  idle: (m) => m.idle(),
  info: (m) => m.info(),
};
/** Public methods that reach the engine through another method's operation. */
const through: Record<string, [operation: string, Call]> = {
  profileLine: ['profile.get', (m) => m.profileLine()],
};
/** Public methods that send no operation: page-side helpers, events, and the shutdown. */
const local = ['formatContext', 'formatReplay', 'persist', 'storageEstimate', 'live', 'on', 'close'];
/** Operations a `Task` handle sends (tasks.start returns it). */
const taskOperations = ['task.flush', 'task.complete'];
/** `memory.sync` drives rounds (facade/memory-sync.ts): its methods send the replica's operations, several per round. */
const syncMethods = ['sync.now', 'sync.start', 'sync.stop'];
const syncOperations = ['sync.enable', 'sync.pending', 'sync.count', 'sync.acknowledge', 'sync.pullState', 'sync.apply'];
/** Where a missing user means every user, so no default is filled in. */
const everyUserWhenLeftOut = new Set(['prune', 'tasks.stats', 'export']);

/** The public method paths of a Memory: its prototype's methods and its namespaces' functions. */
function publicMethods(memory: Memory): string[] {
  const privateMembers = new Set(['constructor', 'invoke', 'closed', 'connection', 'emitter', 'taskBuffering']);
  const own = Object.getOwnPropertyNames(Memory.prototype).filter((name) => !privateMembers.has(name));
  const namespaces = Object.keys(memory).filter((name) => !privateMembers.has(name) && name !== 'sync');
  const inside = namespaces.flatMap((space) => Object.keys((memory as unknown as Record<string, object>)[space]!).map((name) => `${space}.${name}`));
  // A class instance: its public methods (TypeScript's private ones are there at run time too, so they are named).
  const publicSync = ['now', 'start', 'stop'].filter((name) => typeof (memory.sync as unknown as Record<string, unknown>)[name] === 'function').map((name) => `sync.${name}`);
  return [...own, ...inside, ...publicSync].sort();
}

const methodsOf = (operations: readonly AnyOperation[]) => operations.map((operation) => operation.method);

describe('the operation table', () => {
  it('names each operation once, by method and by name', () => {
    const methods = methodsOf(OPERATIONS);
    expect(new Set(methods).size).toBe(methods.length);
    const names = OPERATIONS.map((operation) => operation.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('every public method of Memory is an operation, reached through another, or local; and every operation is reached', () => {
    const { memory } = recordingMemory();
    expect(publicMethods(memory)).toEqual([...Object.keys(calls), ...Object.keys(through), ...local, ...syncMethods].sort());
    expect([...Object.keys(calls), ...taskOperations, ...syncOperations].sort()).toEqual(methodsOf(OPERATIONS).sort());
  });

  it('each method sends exactly its one operation', async () => {
    for (const [operation, call] of [...Object.entries(calls).map(([method, call]) => [method, call] as const), ...Object.values(through)]) {
      const { memory, sent } = recordingMemory();
      await call(memory);
      expect(sent.map((s) => s.method), operation).toEqual([operation]);
    }
  });

  it("a Task handle sends the task operations: flush its steps, then complete", async () => {
    const { memory, sent } = recordingMemory();
    const task = await memory.tasks.start({ description: 'd', type: 'other', context: { complexity: 'simple', domain: 'web' } });
    expect(task).toBeInstanceOf(Task);
    task.log({ tool: 'shell', action: 'ls', result: { kind: 'success', output: '' }, latencyMs: 1 });
    await task.complete({ kind: 'success', verdict: 'done' });
    expect(sent.map((s) => s.method)).toEqual(['tasks.start', ...taskOperations]);
    expect(sent[1]!.args).toEqual(['t1', [expect.objectContaining({ tool: 'shell', parameters: {} })]]);
  });

  it('a closed memory refuses every operation by its name, and sends nothing', async () => {
    const { memory, sent } = recordingMemory();
    await memory.close();
    await expect(memory.facts.list()).rejects.toThrow(new ClosedError('list facts'));
    await expect(memory.recall('q')).rejects.toBeInstanceOf(ClosedError);
    expect(sent).toEqual([]);
  });
});

describe('defaults are applied once, by the operation schema', () => {
  it('every operation that takes a user receives one: the default when the app left it out', async () => {
    const operations = new Map<string, AnyOperation>(OPERATIONS.map((operation) => [operation.method, operation]));
    let checked = 0;
    for (const [method, call] of Object.entries(calls)) {
      const { memory, sent } = recordingMemory();
      await call(memory);
      operations.get(method)!.input.forEach((param, i) => {
        const def = (builtSchema(param.schema) as { _zod: { def: { shape?: object; element?: z.ZodMiniType } } })._zod.def;
        const shape = def.shape ?? (def.element && (builtSchema(def.element)._zod.def as { shape?: object }).shape);
        // `forget` requires its user: the one call that passes one.
        if (!shape || !('userId' in shape) || method === 'forget') return;
        const values = (Array.isArray(sent[0]!.args[i]) ? sent[0]!.args[i] : [sent[0]!.args[i]]) as { userId?: string }[];
        for (const value of values) expect(value.userId, method).toBe(everyUserWhenLeftOut.has(method) ? undefined : 'default');
        checked++;
      });
    }
    // A bare user id parameter, defaulted the same way.
    const { memory, sent } = recordingMemory();
    await memory.profile.get();
    expect(sent[0]!.args).toEqual(['default']);
    expect(checked).toBeGreaterThan(15);
  });

  it("a user the app names is kept, and the operation's other defaults are filled in", async () => {
    const { memory, sent } = recordingMemory();
    await memory.facts.list({ userId: 'ana' });
    await memory.tasks.relevant({ description: 'd' }, { userId: 'ana' });
    await memory.tasks.list();
    await memory.facts.add({ text: 'x' });
    expect(sent.map((s) => s.args)).toEqual([
      [{ userId: 'ana' }],
      [{ description: 'd', context: { tags: [] } }, { k: 5, userId: 'ana' }],
      [{ userId: 'default', limit: 100 }],
      [{ text: 'x', userId: 'default' }, { merge: true }],
    ]);
  });
});

describe('validation runs on a copy', () => {
  it('a getter that changes its answer after validation does not reach the engine', async () => {
    const { memory, sent } = recordingMemory();
    let reads = 0;
    const input = {
      get text() {
        return ++reads === 1 ? 'The user likes tea' : '';
      },
    };
    await memory.facts.add(input);
    const [given] = sent[0]!.args as [Record<string, unknown>];
    expect(reads).toBe(1);
    expect(given).not.toBe(input);
    expect(Object.getOwnPropertyDescriptor(given, 'text')).toMatchObject({ value: 'The user likes tea', writable: true });
    expect(input.text).toBe('');
    expect(given.text).toBe('The user likes tea');
  });

  it('nothing the app keeps a reference to reaches the engine: typed arrays and nested metadata are copied', async () => {
    const { memory, sent } = recordingMemory();
    const embedding = new Float32Array([0.6, 0.8]);
    let reads = 0;
    const nested = {
      get mood() {
        return ++reads === 1 ? 'calm' : 'changed';
      },
    };
    await memory.facts.add({ text: 'The user likes tea', embedding, metadata: { nested } });
    embedding[0] = Number.NaN;
    const [given] = sent[0]!.args as [{ embedding: Float32Array; metadata: { nested: { mood: string } } }];
    expect(given.embedding).not.toBe(embedding);
    expect([...given.embedding]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(given.metadata.nested).not.toBe(nested);
    expect(given.metadata.nested.mood).toBe('calm');
    expect(given.metadata.nested.mood).toBe('calm');
  });

  it('an invalid parameter is refused before anything is sent, its error named by method and parameter', async () => {
    const { memory, sent } = recordingMemory();
    await expect(memory.episodes.update('', { text: 'y' })).rejects.toThrow(ValidationError);
    await expect(memory.episodes.update('', { text: 'y' })).rejects.toThrow(/^episodes\.update: id: must not be empty$/);
    await expect(memory.facts.add({ text: 'x' }, { merge: 'yes' as never })).rejects.toThrow(/^facts\.add: options: merge: /);
    expect(sent).toEqual([]);
  });
});

describe('a cancellable operation honours its signal', () => {
  it('the table marks observe, recall and idle cancellable, and no other', () => {
    expect(methodsOf(OPERATIONS.filter((operation) => operation.cancellable)).sort()).toEqual(['idle', 'observe', 'recall']);
  });

  it('the facade refuses an aborted signal without sending, and forwards a later abort to the call it named', async () => {
    const { memory, sent, aborted } = recordingMemory(new Set(['recall']));
    await expect(memory.recall('q', { signal: AbortSignal.abort(new Error('too late')) })).rejects.toBeInstanceOf(AbortError);
    expect(sent).toEqual([]);

    const controller = new AbortController();
    void memory.recall('q', { signal: controller.signal });
    await Promise.resolve();
    expect(sent).toEqual([{ method: 'recall', args: ['q', { userId: 'default' }], callId: expect.any(String) }]);
    controller.abort(new Error('the user navigated away'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(aborted).toEqual([[sent[0]!.callId, 'the user navigated away']]);
  });

  it('the engine gives the handler the signal the call id names; a call that is not cancellable gets none', async () => {
    const parts = { aborts: new CallAborts(), calls: new CallTracker(), access: { settle: async () => undefined } } as unknown as EngineParts;
    const waitForAbort = defineOperation({
      method: 'test.wait',
      name: 'wait',
      input: [],
      cancellable: true,
      runs: 'untracked',
    });
    const waitHandler = async (_parts: EngineParts, _args: unknown[], caller: AbortSignal | undefined) =>
      new Promise<string>((resolve) => caller?.addEventListener('abort', () => resolve((caller.reason as Error).message), { once: true }));
    const call = runOperation(parts, waitForAbort, waitHandler, [], 'call#1');
    parts.aborts.abort('call#1', 'stop');
    await expect(call).resolves.toBe('stop');
    const notCancellable = defineOperation({
      method: 'test.read',
      name: 'read',
      input: [],
      runs: 'untracked',
    });
    const readHandler = async (_parts: EngineParts, _args: unknown[], caller: AbortSignal | undefined) => (caller ? 'a signal' : 'no signal');
    await expect(runOperation(parts, notCancellable, readHandler, [], 'call#2')).resolves.toBe('no signal');
  });

  it('a tracked operation is refused once the engine stops taking calls, by its name', async () => {
    const calls = new CallTracker();
    const parts = { aborts: new CallAborts(), calls, access: { settle: async () => undefined } } as unknown as EngineParts;
    const operation = defineOperation({ method: 'test.read', name: 'read a test', input: [] });
    const handler = async () => 'read';
    await expect(runOperation(parts, operation, handler, [], undefined)).resolves.toBe('read');
    calls.stop();
    await expect(runOperation(parts, operation, handler, [], undefined)).rejects.toThrow(new ClosedError('read a test'));
  });
});
