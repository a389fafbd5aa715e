/**
 * The web page test's background service worker
 * (test/browser/extension-web-page.test.ts): owns a memory holding one
 * private fact and serves it over chrome.runtime, then as an app that routes
 * web pages' messages (onMessageExternal) into the bridge would: with the
 * extension's id (each request's sender is checked), and without one (refused
 * at once). What happened is left on `self` for the test.
 */
import { createMemory } from 'engram';
import { serveMemory, type RuntimeLike } from 'engram/extension';

/** The part of chrome.runtime used here (no @types/chrome in this project). */
interface ChromeRuntime extends RuntimeLike {
  id: string;
  getURL(path: string): string;
  onMessageExternal: RuntimeLike['onMessage'];
}

const memory = createMemory({ name: 'web-notes', worker: false, embedder: { model: 'minishlab/potion-base-4M-int8', localModelPath: '/models/' } });
const seeded = memory.then((m) => m.facts.add({ id: 'private', text: 'The user is saving for a sailing boat' }));
const runtime = (globalThis as unknown as { chrome: { runtime: ChromeRuntime } }).chrome.runtime;
serveMemory(memory);
serveMemory(memory, { runtime: { id: runtime.id, getURL: (path) => runtime.getURL(path), sendMessage: (m) => runtime.sendMessage(m), onMessage: runtime.onMessageExternal } });
let blind: Record<string, unknown>;
try {
  serveMemory(memory, { runtime: { sendMessage: (m) => runtime.sendMessage(m), onMessage: runtime.onMessageExternal } });
  blind = { served: true };
} catch (error) {
  blind = { name: (error as Error).name, code: (error as { code?: string }).code, message: (error as Error).message };
}
Object.assign(self, {
  blind,
  storedFacts: async () => {
    await seeded;
    return (await (await memory).facts.list()).map((fact) => fact.id);
  },
});
