import { indexedDB, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { createMemory } from '../../src/index.js';
import { deserializeError, EngramError, serializeError, WorkerStartError } from '../../src/errors.js';

describe('WorkerStartError', () => {
  it('keeps its class, code, url and reason across the worker boundary (serialize → deserialize)', () => {
    const original = new WorkerStartError('the engine worker could not be loaded', { url: 'http://127.0.0.1/w.js', reason: 'load', cause: '404' });
    const rebuilt = deserializeError(serializeError(original)) as WorkerStartError;
    expect(rebuilt).toBeInstanceOf(WorkerStartError);
    expect(rebuilt).toBeInstanceOf(EngramError);
    expect({ name: rebuilt.name, code: rebuilt.code, url: rebuilt.url, reason: rebuilt.reason, message: rebuilt.message }).toEqual({
      name: 'WorkerStartError',
      code: 'WORKER_START',
      url: 'http://127.0.0.1/w.js',
      reason: 'load',
      message: 'the engine worker could not be loaded',
    });
  });

  it('asking for a worker where there is no Worker constructor (Node) rejects with reason "unsupported", not a raw error', async () => {
    const error = await createMemory({ name: 'no-workers', worker: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerStartError);
    expect((error as WorkerStartError).reason).toBe('unsupported');
    expect((error as Error).message).toContain('Node has no Web Workers');
  });

  it('a worker factory that throws (a content script refusing workers) rejects with reason "create" carrying the cause', async () => {
    const error = await createMemory({
      name: 'refused',
      worker: () => {
        throw new Error('SecurityError: workers are not allowed here');
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerStartError);
    expect((error as WorkerStartError).reason).toBe('create');
    expect((error as Error).message).toContain('workers are not allowed here');
    // The in-process path is unaffected.
    const memory = await createMemory({ name: 'in-process', indexedDB, IDBKeyRange, embedder: { id: 'x', dimension: 2, embed: async (t: string[]) => t.map(() => new Float32Array([1, 0])) } });
    await memory.close();
  });
});
