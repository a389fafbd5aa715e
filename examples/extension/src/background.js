// The background service worker owns the memory: its IndexedDB is the
// extension's own origin, never a visited website's. engram is bundled into
// this file (no Worker here, so worker: false) and runs on its bundled static
// model, which build.mjs copies into the extension (models/): no WebAssembly,
// no network.
import { createMemory } from 'engram';
import { serveMemory } from 'engram/extension';

const memory = createMemory({ name: 'notes', worker: false });

// Registered synchronously at the top level, so a message wakes the service worker and is answered.
serveMemory(memory);

// What the content scripts found about each tab's page (see content.js): the
// badge counts them and the popup lists them. Kept per tab, in memory only.
const pageMemories = new Map();
// Visible from the service worker's console (and read by the repository's check, examples/browser/check-extension.ts).
self.pageMemories = pageMemories;

chrome.runtime.onMessage.addListener((message, sender) => {
  if (message?.type !== 'page-memories' || sender.id !== chrome.runtime.id || !sender.tab) return;
  pageMemories.set(sender.tab.id, { lines: message.lines });
  void chrome.action.setBadgeText({ tabId: sender.tab.id, text: message.lines.length ? String(message.lines.length) : '' });
});
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message?.type !== 'page-memories?' || sender.id !== chrome.runtime.id) return;
  sendResponse(pageMemories.get(message.tabId) ?? { lines: [] });
});
chrome.tabs.onRemoved.addListener((tabId) => pageMemories.delete(tabId));
