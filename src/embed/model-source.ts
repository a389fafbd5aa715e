import { EmbedderError } from '../errors.js';

/**
 * Where the files of one embedding model are read from: a `localModelPath`
 * folder (Node) or URL prefix (browser) holding `<org>/<model>/...`, or the
 * model engram ships (../default-model-files.ts), whose files a bundler may
 * have renamed. Each file is read from disk in Node, and in a browser from
 * the Cache API or else with `fetch`.
 */
export interface ModelSource {
  readonly model: string;
  /** For messages: what was tried, and what a model there looks like. */
  readonly where: string;
  readonly layout: string;
  /** The path or URL `file` is read from. */
  locate(file: string): string;
  /**
   * The file's bytes, or `undefined` when it is not there (a 404, no such
   * file). An answer that is a web page (a dev server's index.html fallback
   * for a path it does not serve) is an EmbedderError naming the URL.
   */
  read(file: string): Promise<Uint8Array | undefined>;
  /** Node: which folder of the path does not exist, when config.json is missing. */
  folderProblem?(): Promise<string | undefined>;
}

/** The files a static model is read from, in the order they are needed. */
export const LAYOUT_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

/** A model in the app's own folder or under a URL prefix: `<localModelPath>/<model>/<file>`. */
export function localModelSource(localModelPath: string, model: string): ModelSource {
  const base = localModelPath.endsWith('/') ? localModelPath : `${localModelPath}/`;
  const locate = (file: string) => (isNodeFileSystem() ? `${base}${model}/${file}` : new URL(`${base}${model}/${file}`, pageHref()).href);
  return {
    model,
    where: locate(''),
    layout: `${base}<org>/<model>/ (here ${base}${model}/) with ${LAYOUT_FILES.join(', ')}`,
    locate,
    read: (file) => (isNodeFileSystem() ? readFromDisk(locate(file)) : fetchModelFile(locate(file))),
    folderProblem: isNodeFileSystem() ? () => folderProblem(base, model) : undefined,
  };
}

async function folderProblem(base: string, model: string): Promise<string | undefined> {
  const fs = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS)) as typeof import('node:fs/promises');
  const isFolder = (path: string) => fs.stat(path).then((s) => s.isDirectory(), () => false);
  if (!(await isFolder(base))) return `folder not found: ${base}`;
  if (!(await isFolder(`${base}${model}`))) return `${base} has no folder ${model}/`;
  return undefined;
}

/** A model whose files are given one URL each (file: URLs in Node, what the bundler emitted in a browser). */
export function urlModelSource(model: string, files: Record<string, URL>, where: string, layout: string): ModelSource {
  const locate = (file: string) => files[file]?.href ?? `(no URL for ${file})`;
  return {
    model,
    where,
    layout,
    locate,
    async read(file) {
      const url = files[file];
      if (!url) return undefined;
      return url.protocol === 'file:' && isNodeFileSystem() ? readFromDisk(url) : fetchModelFile(url.href);
    },
  };
}

async function readFromDisk(path: string | URL): Promise<Uint8Array | undefined> {
  // A specifier bundlers do not follow (see import-transformers.ts); browser bundles drop this branch.
  const fs = (await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS)) as typeof import('node:fs/promises');
  try {
    return new Uint8Array(await fs.readFile(path));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function fetchModelFile(url: string): Promise<Uint8Array | undefined> {
  const cache = await openModelCache();
  const cached = await cache?.match(url).catch(() => undefined);
  if (cached) return new Uint8Array(await cached.arrayBuffer());
  const response = await fetch(url);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/html') || startsLikeHtml(bytes)) {
    throw new EmbedderError(`${url} answered with a web page, not a model file (a dev server answers index.html for a path it does not serve).`, {
      reason: 'not-a-model',
      url,
    });
  }
  // A full disk or a refused cache only costs the next visit a download.
  await cache?.put(url, new Response(bytes, { headers: { 'content-type': type || 'application/octet-stream' } })).catch(() => undefined);
  return bytes;
}

/** `<!doctype` or `<html` after any whitespace: no JSON or ONNX file starts with `<`. */
function startsLikeHtml(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0xef || bytes[i] === 0xbb || bytes[i] === 0xbf)) i++;
  return bytes[i] === 0x3c;
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

function pageHref(): string | undefined {
  return (globalThis as { location?: { href: string } }).location?.href;
}

const NODE_FS = 'node:fs/promises';

/** Set in engram's browser bundles (tsup.config.ts), where the Node branch is dropped. */
declare const ENGRAM_BROWSER_BUNDLE: boolean | undefined;

export function isNodeFileSystem(): boolean {
  if (typeof ENGRAM_BROWSER_BUNDLE !== 'undefined') return false;
  const process = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof process?.versions?.node === 'string' && typeof (globalThis as { document?: unknown }).document === 'undefined';
}
