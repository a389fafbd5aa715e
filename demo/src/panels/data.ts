import type { App } from '../app.js';
import { h, mount } from '../dom.js';

/**
 * The tab's last message ("Imported 10 facts…"). Kept outside the tab: an
 * action changes the store, the change redraws the tab, and a message held
 * by the old elements would vanish with them.
 */
let lastMessage = '';

/** Storage used, persistent storage, export to a file, import from one, delete everything for the user. */
export async function dataTab(root: HTMLElement, app: App): Promise<void> {
  const estimate = await app.memory.storageEstimate();
  const info = await app.memory.info();
  const result = h('p', { id: 'data-result', class: 'muted', role: 'status' }, lastMessage);
  const say = (message: string) => {
    lastMessage = message;
    result.textContent = message;
  };
  const file = h('input', { id: 'import-file', type: 'file', accept: '.jsonl,.ndjson,application/x-ndjson' });
  mount(
    root,
    h('h2', {}, 'Storage'),
    h('p', { id: 'storage' }, estimate ? `${(estimate.usage / 1e6).toFixed(2)} MB used of ${(estimate.quota / 1e9).toFixed(1)} GB; persistent: ${estimate.persisted ? 'yes' : 'no'}` : 'Storage estimate unavailable.', ` · ${info.indexed} memories indexed · embedder ${info.embedder.id} (${info.embedder.dimension}-d)`),
    h('button', { id: 'persist', onclick: async () => { say((await app.memory.persist()) ? 'Storage is persistent.' : 'The browser declined persistent storage.'); app.refresh(); } }, 'Ask for persistent storage'),
    h('h2', {}, 'Export and import'),
    h('div', { class: 'flex' },
      h('button', { id: 'export', onclick: async () => {
        const blob = await app.memory.export({ userId: app.userId() });
        const a = h('a', { href: URL.createObjectURL(blob), download: `engram-${app.userId()}.jsonl` });
        document.body.append(a);
        a.click();
        a.remove();
        say(`Exported ${(blob.size / 1024).toFixed(1)} KB.`);
      } }, 'Export to a file'),
      file,
      h('button', { id: 'import', onclick: async () => {
        const chosen = file.files?.[0];
        if (!chosen) return say('Choose a file to import first (an export from this page: .jsonl).');
        try {
          const summary = await app.memory.import(chosen);
          say(`Imported ${summary.facts} facts and ${summary.episodes} episodes.`);
        } catch (e) {
          say(`Import refused: ${(e as Error).message}`);
        }
        app.refresh();
      } }, 'Import'),
    ),
    h('h2', {}, 'Delete'),
    h('button', { id: 'forget', onclick: async () => {
      if (!confirm(`Delete every memory of ${app.userId()}?`)) return;
      const removed = await app.memory.forget({ userId: app.userId() });
      say(`Deleted ${removed.facts} facts and ${removed.episodes} episodes.`);
      app.refresh();
    } }, 'Delete everything for this user'),
    result,
  );
}
