import type { SerializedError } from '../errors.js';

/**
 * The extension bridge's messages (chrome.runtime messaging: JSON only, so
 * every value is plain data and Blobs travel as text).
 */
export const BRIDGE_TAG = 'engram-bridge/1';

export interface BridgeRequest {
  tag: typeof BRIDGE_TAG;
  /** The memory's name: one extension may serve several. */
  name: string;
  /** A method of `Memory`, as a dotted path from the allow-list below. */
  method: BridgeMethod;
  args: unknown[];
}

export type BridgeResponse = { ok: true; value: unknown } | { ok: false; error: SerializedError };

/**
 * What the bridge forwards: `Memory`'s data methods. Not here: `tasks.start`
 * (a handle with its own buffer), `live` and `on` (a stream of events), and
 * `close` (the owner decides when the memory closes).
 */
export const BRIDGE_METHODS = [
  'facts.add',
  'facts.addMany',
  'facts.get',
  'facts.list',
  'facts.update',
  'facts.delete',
  'facts.history',
  'turns.add',
  'turns.addMany',
  'turns.get',
  'turns.list',
  'turns.delete',
  'episodes.add',
  'episodes.get',
  'episodes.list',
  'episodes.update',
  'episodes.delete',
  'episodes.chain',
  'episodes.sequence',
  'episodes.children',
  'episodes.close',
  'tasks.get',
  'tasks.list',
  'tasks.relevant',
  'tasks.stats',
  'patterns.relevant',
  'profile.get',
  'profile.update',
  'profileLine',
  'observe',
  'recall',
  'activity',
  'prune',
  'forget',
  'idle',
  'info',
  'export',
  'import',
] as const;
export type BridgeMethod = (typeof BRIDGE_METHODS)[number];

/** Who sent a message, as `chrome.runtime.MessageSender` says: the fields the bridge checks. */
export interface MessageSenderLike {
  /** The sending extension's id; absent for a web page. */
  id?: string;
  /** The sending document's origin (Chrome 80+). */
  origin?: string;
  /** The sending document's or worker's URL. */
  url?: string;
  /** The tab of a content script (or of a web page). */
  tab?: unknown;
}

/** The part of `chrome.runtime` (or `browser.runtime`) the bridge uses. */
export interface RuntimeLike {
  /** The extension's id; a runtime without one is refused. */
  id?: string;
  /** The URL of a file of the extension: its origin is the extension's own. */
  getURL?(path: string): string;
  /** Sends a message to the extension's other contexts and resolves with the answer. */
  sendMessage(message: unknown): Promise<unknown>;
  /** Messages from the extension's other contexts. */
  onMessage: {
    /** Starts delivering messages to `listener`; returning `true` keeps `sendResponse` valid after it returns. */
    addListener(listener: (message: unknown, sender: MessageSenderLike, sendResponse: (response: unknown) => void) => boolean | void): void;
    /** Stops delivering messages to `listener`. */
    removeListener(listener: (message: unknown, sender: MessageSenderLike, sendResponse: (response: unknown) => void) => boolean | void): void;
  };
}

/** `chrome.runtime`, or `browser.runtime` in Firefox. */
export function defaultRuntime(): RuntimeLike | undefined {
  const scope = globalThis as { chrome?: { runtime?: RuntimeLike }; browser?: { runtime?: RuntimeLike } };
  return scope.chrome?.runtime?.id ? scope.chrome.runtime : scope.browser?.runtime;
}
