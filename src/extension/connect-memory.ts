import { deserializeError, ValidationError } from '../errors.js';
import type { Memory } from '../facade/memory.js';
import { formatContext } from '../recall/format-context.js';
import { formatReplay } from '../recall/format-replay.js';
import { BRIDGE_TAG, defaultRuntime, type BridgeMethod, type BridgeResponse, type RuntimeLike } from './protocol.js';

/**
 * The memory as the rest of an extension sees it: the same methods as
 * `Memory` for data (facts, turns, episodes, profile, recall, observe, export and
 * import...), each a message to the context that serves it
 * (`serveMemory`), with the same typed errors. Not forwarded: `tasks.start`,
 * `live`, `on` and `close`, and no `signal` option (an AbortSignal cannot be
 * sent).
 */
export interface RemoteMemory {
  /** `Memory.facts`, through the extension. */
  facts: Memory['facts'];
  /** `Memory.turns`, through the extension. */
  turns: Memory['turns'];
  /** `Memory.episodes`, through the extension. */
  episodes: Memory['episodes'];
  /** `Memory.tasks` but `start` (a task handle has its own buffer: start tasks where the memory lives). */
  tasks: Omit<Memory['tasks'], 'start'>;
  /** `Memory.patterns`, through the extension. */
  patterns: Memory['patterns'];
  /** `Memory.profile`, through the extension. */
  profile: Memory['profile'];
  /** `Memory.profileLine`, through the extension. */
  profileLine: Memory['profileLine'];
  /** `Memory.observe`, through the extension (no `signal`). */
  observe: Memory['observe'];
  /** `Memory.recall`, through the extension (no `signal`). */
  recall: Memory['recall'];
  /** `Memory.activity`, through the extension. */
  activity: Memory['activity'];
  /** `Memory.prune`, through the extension. */
  prune: Memory['prune'];
  /** `Memory.forget`, through the extension. */
  forget: Memory['forget'];
  /** `Memory.idle`, through the extension (no `signal`). */
  idle: Memory['idle'];
  /** `Memory.info`, through the extension. */
  info: Memory['info'];
  /** `Memory.export`, through the extension (the file travels as text). */
  export: Memory['export'];
  /** `Memory.import`, through the extension. */
  import: Memory['import'];
  /** `Memory.formatContext`, run in this context (no round trip). */
  formatContext: Memory['formatContext'];
  /** `Memory.formatReplay`, run in this context (no round trip). */
  formatReplay: Memory['formatReplay'];
}

/**
 * Connects to the memory named `name` that the extension serves with
 * `serveMemory` (from a content script, the popup or any extension page).
 * Nothing is opened here: the data stays in the extension's origin.
 */
export function connectMemory(name: string, options: { runtime?: RuntimeLike } = {}): RemoteMemory {
  const runtime = options.runtime ?? defaultRuntime();
  if (!runtime) throw new ValidationError('connectMemory: no chrome.runtime here; call it in an extension context (a content script, the popup, an extension page).', [{ path: 'runtime', message: 'required' }]);
  if (typeof name !== 'string' || name.length === 0) throw new ValidationError('connectMemory: name must be the served memory\'s name.', [{ path: 'name', message: 'required' }]);

  const call = async (method: BridgeMethod, args: unknown[]): Promise<unknown> => {
    for (const arg of args) {
      if (typeof arg === 'object' && arg !== null && 'signal' in arg && (arg as { signal?: unknown }).signal !== undefined) {
        throw new ValidationError(`${method}: \`signal\` cannot cross the extension bridge (an AbortSignal cannot be sent).`, [{ path: 'signal', message: 'not supported over the bridge' }]);
      }
    }
    let response: BridgeResponse | undefined;
    try {
      response = (await runtime.sendMessage({ tag: BRIDGE_TAG, name, method, args })) as BridgeResponse | undefined;
    } catch (cause) {
      throw new ValidationError(`${method}: the extension bridge could not reach the memory "${name}" (${(cause as Error)?.message ?? cause}). Is serveMemory() running in the extension's service worker or an open extension page?`, [{ path: 'bridge', message: 'no answer' }]);
    }
    if (!response) throw new ValidationError(`${method}: nothing in the extension serves the memory "${name}" (no serveMemory() answered).`, [{ path: 'bridge', message: 'no answer' }]);
    if (!response.ok) throw deserializeError(response.error);
    return response.value;
  };
  const fn = (method: BridgeMethod) => (...args: unknown[]) => call(method, args);
  const space = <K extends string>(prefix: string, methods: readonly K[]) => Object.fromEntries(methods.map((m) => [m, fn(`${prefix}.${m}` as BridgeMethod)])) as Record<K, (...args: unknown[]) => Promise<unknown>>;

  const remote = {
    facts: space('facts', ['add', 'addMany', 'get', 'list', 'update', 'delete', 'history']),
    turns: space('turns', ['add', 'addMany', 'get', 'list', 'delete']),
    episodes: space('episodes', ['add', 'get', 'list', 'update', 'delete', 'chain', 'sequence', 'children', 'close']),
    tasks: space('tasks', ['get', 'list', 'relevant', 'stats']),
    patterns: space('patterns', ['relevant']),
    profile: space('profile', ['get', 'update']),
    profileLine: fn('profileLine'),
    observe: fn('observe'),
    recall: fn('recall'),
    activity: fn('activity'),
    prune: fn('prune'),
    forget: fn('forget'),
    idle: fn('idle'),
    info: fn('info'),
    export: async (...args: unknown[]) => new Blob([(await call('export', args)) as string], { type: 'application/x-ndjson' }),
    import: async (data: Blob | string | ArrayBuffer | Uint8Array) =>
      call('import', [typeof data === 'string' ? data : data instanceof Blob ? await data.text() : new TextDecoder().decode(data as ArrayBuffer)]),
    formatContext,
    formatReplay,
  };
  return remote as unknown as RemoteMemory;
}
