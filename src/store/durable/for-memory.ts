import { ValidationError } from '../../errors.js';
import { readOnlyWithoutDirectory } from '../../schema/read-only-option.js';
import type { DurableStore } from './durable-store.js';

/**
 * `createMemory({ directory })`: opens the durable Node store, or nothing when
 * no directory is given. The store's module (node:fs, fake-indexeddb) is
 * loaded only here, so browser bundles never run it.
 */
export async function openDurableFor(options: { name: string; directory?: string; indexedDB?: unknown; readOnly?: boolean; inProcess: boolean }): Promise<DurableStore | undefined> {
  if (options.directory === undefined) {
    if (options.readOnly) throw readOnlyWithoutDirectory();
    return undefined;
  }
  if (options.indexedDB) {
    throw new ValidationError('createMemory: pass either `directory` (a durable store on disk) or `indexedDB` (your own IndexedDB), not both.', [
      { path: 'directory', message: 'not allowed with indexedDB' },
    ]);
  }
  const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  if (!isNode || !options.inProcess) {
    throw new ValidationError('createMemory: `directory` (a durable store on disk) works in Node, in-process; in the browser the store is IndexedDB and persists by itself.', [
      { path: 'directory', message: 'Node only' },
    ]);
  }
  const { openDurableStore } = await import('./durable-store.js');
  return openDurableStore(options.directory, options.name, { readOnly: options.readOnly });
}
