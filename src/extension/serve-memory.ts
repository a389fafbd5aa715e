import { serializeError, ValidationError } from '../errors.js';
import type { Memory } from '../facade/memory.js';
import { BRIDGE_METHODS, BRIDGE_TAG, defaultRuntime, type BridgeRequest, type BridgeResponse, type MessageSenderLike, type RuntimeLike } from './protocol.js';

const ALLOWED = new Set<string>(BRIDGE_METHODS);

interface Served {
  memory: Promise<Memory>;
  /** The memory's name, or undefined when it failed to open. */
  name: Promise<string | undefined>;
}

type Listener = (message: unknown, sender: MessageSenderLike, sendResponse: (response: unknown) => void) => boolean | void;

/**
 * One listener per runtime in this context, answering for every memory
 * served here: with one listener per memory, a listener that does not serve
 * the asked name would have to answer (and could win the race against the
 * one that does) or stay silent (and leave the caller waiting).
 */
const registries = new WeakMap<RuntimeLike, { served: Set<Served>; listener: Listener }>();

/**
 * Serves a memory to the rest of the extension (content scripts, popup,
 * other pages) over `chrome.runtime` messaging, from where it lives: the
 * background service worker (engram bundled into it as one file, on a
 * static model) or an extension page / offscreen document. The data stays
 * in the extension's origin; every call is validated here by the memory
 * itself, and its errors go back typed (see ./connect-memory.ts).
 *
 * Only this extension is answered, checked on every request (`fromThisExtension`):
 * the sender's id must be the runtime's, and its origin the extension's own
 * unless it is a content script (a sender in a tab). A web page (even one
 * the manifest's `externally_connectable` lets send messages, and whose
 * messages an app routes here) has no extension id and is never answered.
 * So a runtime without an extension id is refused with a ValidationError:
 * it would have nothing to tell the extension's senders from a page by.
 * Serve every memory from one context (several from the same one are fine).
 * Returns a function that stops serving this memory.
 */
export function serveMemory(memory: Memory | Promise<Memory>, options: { runtime?: RuntimeLike } = {}): () => void {
  const runtime = options.runtime ?? defaultRuntime();
  if (!runtime) throw new ValidationError('serveMemory: no chrome.runtime here; call it in an extension context (a service worker or an extension page).', [{ path: 'runtime', message: 'required' }]);
  const id = (runtime as { id?: unknown }).id;
  if (typeof id !== 'string' || id.length === 0) {
    throw new ValidationError(
      "serveMemory: the runtime has no extension id, so the bridge could not tell this extension's messages from a web page's. Pass chrome.runtime (or browser.runtime) of an extension context, or a runtime whose `id` is the extension's.",
      [{ path: 'runtime.id', message: 'must be the extension id' }],
    );
  }
  const given = memory as unknown as { info?: unknown; then?: unknown } | null;
  if (typeof given !== 'object' || given === null || (typeof given.info !== 'function' && typeof given.then !== 'function')) {
    throw new ValidationError('serveMemory: pass the memory from createMemory(), or its promise.', [{ path: 'memory', message: 'expected a Memory or a Promise<Memory>' }]);
  }
  const ready = Promise.resolve(memory);
  // A memory that failed to open answers every call with its opening error
  // (see answer()); the name is then unknown.
  const entry: Served = { memory: ready, name: ready.then(async (m) => (await m.info()).name).catch(() => undefined) };

  let registry = registries.get(runtime);
  if (!registry) {
    const served = new Set<Served>();
    const origin = extensionOrigin(runtime, id);
    const listener: Listener = (message, sender, sendResponse) => {
      if (!isRequest(message)) return undefined;
      if (!fromThisExtension(sender, id, origin)) return undefined;
      void answer([...served], message).then(sendResponse);
      return true; // keeps the channel open for the asynchronous answer
    };
    registry = { served, listener };
    registries.set(runtime, registry);
    runtime.onMessage.addListener(listener);
  }
  registry.served.add(entry);

  return () => {
    const current = registries.get(runtime);
    if (!current?.served.delete(entry) || current.served.size > 0) return;
    runtime.onMessage.removeListener(current.listener);
    registries.delete(runtime);
  };
}

/** The extension's own origin (`chrome-extension://<id>`; in Firefox a per-install UUID that only getURL knows). */
function extensionOrigin(runtime: RuntimeLike, id: string): string {
  try {
    const own = typeof runtime.getURL === 'function' ? originOf(runtime.getURL('/')) : undefined;
    if (own) return own;
  } catch {
    // A runtime whose getURL fails: Chrome's form below.
  }
  return `chrome-extension://${id}`;
}

/**
 * Whether a message comes from this extension: its sender has the
 * extension's id (a web page has none), and comes from the extension's own
 * origin (its pages, popup, offscreen documents, service worker) or is a
 * content script of it (in a tab, at the page's origin). A sender whose
 * origin the browser does not report is judged by its id.
 */
function fromThisExtension(sender: MessageSenderLike | undefined, id: string, origin: string): boolean {
  if (!sender || sender.id !== id) return false;
  const from = typeof sender.origin === 'string' ? sender.origin : originOf(sender.url);
  if (from === undefined || from === origin) return true;
  return sender.tab !== undefined && sender.tab !== null;
}

/** Scheme and host of a URL: `URL.origin` is "null" for schemes the URL standard does not know, such as chrome-extension:. */
function originOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : parsed.origin;
  } catch {
    return undefined;
  }
}

function isRequest(message: unknown): message is BridgeRequest {
  const m = message as Partial<BridgeRequest> | null;
  return typeof m === 'object' && m !== null && m.tag === BRIDGE_TAG && typeof m.method === 'string' && Array.isArray(m.args) && typeof m.name === 'string';
}

async function answer(served: Served[], request: BridgeRequest): Promise<BridgeResponse> {
  try {
    const names = await Promise.all(served.map((s) => s.name));
    const index = names.indexOf(request.name);
    if (index < 0) {
      // One served memory that failed to open: its own error says why.
      if (served.length === 1 && names[0] === undefined) await served[0]!.memory;
      const known = names.filter((n): n is string => n !== undefined).map((n) => `"${n}"`);
      throw new ValidationError(`The extension serves ${known.length ? `the memory ${known.join(', ')}` : 'no open memory'}, not "${request.name}".`, [{ path: 'name', message: `not served: ${request.name}` }]);
    }
    if (!ALLOWED.has(request.method)) throw new ValidationError(`The extension bridge does not forward "${request.method}".`, [{ path: 'method', message: 'not forwarded' }]);
    const memory = await served[index]!.memory;
    const [space, method] = request.method.includes('.') ? request.method.split('.') : [undefined, request.method];
    const target = (space ? (memory as unknown as Record<string, Record<string, unknown>>)[space] : memory) as Record<string, (...args: unknown[]) => unknown>;
    const value = await target[method!]!.apply(target, request.args);
    // Blobs do not survive JSON: an export travels as its text.
    return { ok: true, value: value instanceof Blob ? await value.text() : value };
  } catch (error) {
    return { ok: false, error: serializeError(error) };
  }
}
