import { ContextError } from '../errors.js';

type ExtensionGlobals = {
  chrome?: { runtime?: { id?: string } };
  browser?: { runtime?: { id?: string } };
  location?: { protocol?: string };
  document?: unknown;
};

/** The protocols of an extension's own pages and workers (Chromium, Firefox, Safari). */
const EXTENSION_PROTOCOLS = new Set(['chrome-extension:', 'moz-extension:', 'safari-web-extension:']);

/**
 * True in a browser extension's content script: the extension API is there
 * (`runtime.id`), but the document is a web page's, so IndexedDB, Cache
 * Storage and workers belong to that page's origin.
 */
export function isContentScript(scope: ExtensionGlobals = globalThis as ExtensionGlobals): boolean {
  const runtimeId = scope.chrome?.runtime?.id ?? scope.browser?.runtime?.id;
  if (typeof runtimeId !== 'string' || scope.document === undefined) return false;
  const protocol = scope.location?.protocol;
  return typeof protocol === 'string' && !EXTENSION_PROTOCOLS.has(protocol);
}

/** `createMemory` in a content script: refused unless the app says the page's origin should own the data. */
export function refuseContentScript(allowPageOrigin: boolean | undefined): void {
  if (allowPageOrigin === true || !isContentScript()) return;
  throw new ContextError(
    "createMemory: this is a browser extension's content script, where IndexedDB belongs to the visited page's origin: that website could read (and delete) the user's memories. Run engram in the extension's own origin (an extension page or an offscreen document) and reach it with chrome.runtime messaging, or pass `allowPageOrigin: true` if the page's origin is meant to own the data.",
    { context: 'content-script' },
  );
}
