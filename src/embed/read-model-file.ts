/**
 * Reads one file of a local model: from disk in Node (`localModelPath` is a
 * folder), in a browser from the Cache API or else with `fetch`
 * (`localModelPath` is a URL or a path on the app's origin). Resolves
 * `undefined` when the file is not there.
 */
export async function readModelFile(localModelPath: string, model: string, file: string): Promise<Uint8Array | undefined> {
  const base = localModelPath.endsWith('/') ? localModelPath : `${localModelPath}/`;
  if (isNodeFileSystem()) {
    // A specifier bundlers do not follow (see import-transformers.ts); browser bundles drop this branch.
    const fs = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS)) as typeof import('node:fs/promises');
    try {
      return new Uint8Array(await fs.readFile(`${base}${model}/${file}`));
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  }
  const url = new URL(`${base}${model}/${file}`, (globalThis as { location?: { href: string } }).location?.href).href;
  const cache = await openModelCache();
  const cached = await cache?.match(url).catch(() => undefined);
  if (cached) return new Uint8Array(await cached.arrayBuffer());
  const response = await fetch(url);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A full disk or a refused cache only costs the next visit a download.
  await cache?.put(url, new Response(bytes, { headers: { 'content-type': response.headers.get('content-type') ?? 'application/octet-stream' } })).catch(() => undefined);
  return bytes;
}

/**
 * Model files are kept in the Cache API, as transformers.js keeps its own, so
 * a second visit (or an offline one) reads them without the network. Keyed
 * by URL: a new model needs a new path (or `caches.delete(MODEL_CACHE)`).
 */
export const MODEL_CACHE = 'engram-models';

async function openModelCache(): Promise<Cache | undefined> {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  // Absent outside secure contexts; opening can also be refused (private modes, storage off).
  return storage ? storage.open(MODEL_CACHE).catch(() => undefined) : undefined;
}

const NODE_FS = 'node:fs/promises';

/** Set in engram's browser bundles (tsup.config.ts), where the Node branch is dropped. */
declare const ENGRAM_BROWSER_BUNDLE: boolean | undefined;

function isNodeFileSystem(): boolean {
  if (typeof ENGRAM_BROWSER_BUNDLE !== 'undefined') return false;
  const process = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof process?.versions?.node === 'string' && typeof (globalThis as { document?: unknown }).document === 'undefined';
}
