/**
 * engram/extension: one memory for a whole browser extension, kept in the
 * extension's own origin.
 *
 *   // background service worker (engram bundled into it as one file; node_modules/engram/models/ copied to the extension's models/)
 *   serveMemory(createMemory({ name: 'notes', worker: false }));
 *
 *   // content script, popup, options page
 *   const memory = connectMemory('notes');
 *   await memory.facts.add({ text: 'The user reads about sailing' });
 */
export { serveMemory } from './serve-memory.js';
export { connectMemory, type RemoteMemory } from './connect-memory.js';
export type { RuntimeLike } from './protocol.js';
