import { ValidationError } from '../errors.js';
import type { DurableStore } from '../store/durable/durable-store.js';
import { readOnlyWithoutDirectory } from '../schema/read-only-option.js';

/**
 * What `createMemory({ directory })` opens. engram's Node build
 * (src/index.node.ts, package.json's `node` condition) passes the durable
 * store's opener; the browser build passes `noDirectory`, so browser bundles
 * never see the store's Node built-ins (fs, path, v8, zlib, os).
 */
export type DurableOpener = (options: { name: string; directory?: string; indexedDB?: unknown; readOnly?: boolean; inProcess: boolean }) => Promise<DurableStore | undefined>;

/** The browser build's opener: no store on disk, and a clear error for `directory`. */
export const noDirectory: DurableOpener = async (options) => {
  if (options.directory === undefined) {
    if (options.readOnly) throw readOnlyWithoutDirectory();
    return undefined;
  }
  throw new ValidationError(
    'createMemory: `directory` (a durable store on disk) works in Node, in-process; this is engram\'s browser build, where the store is IndexedDB and persists by itself. In Node, engram\'s Node build is chosen by the `node` export condition (Node sets it; a bundler targeting Node must too).',
    [{ path: 'directory', message: 'Node only' }],
  );
};
