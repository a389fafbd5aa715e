import { afterAll, afterEach } from 'vitest';
import type { Memory, MemoryOptions } from '../../src/index.js';
import { openMemory } from './memory.js';

/** Anything with the memory's close(): a Memory, a second engine, a durable store's Memory. */
interface Closable {
  close(options?: { timeoutMs?: number }): Promise<void>;
}

export interface MemoryFixture {
  /** Opens a memory on the real model (`openMemory`: its own fake-indexeddb database unless `name` and a factory are given), closed by the fixture. */
  open(options?: Partial<MemoryOptions>): Promise<Memory>;
  /** Has the fixture close a memory opened another way (createMemory with other parts, the Node build, a durable folder). */
  keep<M extends Closable>(memory: M): M;
}

/**
 * The one way an integration file opens and closes its memories: call it
 * once at the top of the file, open memories through it, and every one is
 * closed after each test (or, with `closeAfter: 'all'`, after the file's
 * last test, for a memory the tests share), whatever the test did. A test
 * that closes a memory itself (to reopen its database) may: close() again
 * does nothing.
 */
export function memoryFixture(
  settings: {
    /** Options every `open` starts from (each call's own options win). */
    defaults?: Partial<MemoryOptions>;
    closeAfter?: 'each' | 'all';
    /** close()'s own deadline for the background work it waits for (its default is 10 s). */
    closeTimeoutMs?: number;
  } = {},
): MemoryFixture {
  const opened: Closable[] = [];
  const closeAll = async () => {
    const closeOptions = settings.closeTimeoutMs === undefined ? undefined : { timeoutMs: settings.closeTimeoutMs };
    await Promise.all(opened.splice(0).map((memory) => memory.close(closeOptions)));
  };
  if (settings.closeAfter === 'all') afterAll(closeAll);
  else afterEach(closeAll);
  const keep = <M extends Closable>(memory: M): M => {
    opened.push(memory);
    return memory;
  };
  return {
    keep,
    open: async (options = {}) => keep(await openMemory({ ...settings.defaults, ...options })),
  };
}
