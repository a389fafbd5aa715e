import type { App } from '../app.js';
import { h, mount } from '../dom.js';

const CATEGORIES = ['preference', 'profile', 'goal', 'relationship', 'skill', 'other'] as const;

/** Add a fact (with its category) or an episode by hand. */
export function addPanel(root: HTMLElement, app: App): void {
  const kind = h('select', { id: 'add-kind', onchange: () => (category.hidden = kind.value !== 'fact') }, h('option', { value: 'fact' }, 'fact'), h('option', { value: 'episode' }, 'episode'));
  // Facts merge with a near-identical current fact of the same category: choosing it lets a hand-added
  // fact update the one the conversation produced instead of standing beside it.
  const category = h('select', { id: 'add-category', 'aria-label': 'category' }, ...CATEGORIES.map((c) => h('option', { value: c }, c)));
  const text = h('textarea', { id: 'add-text', rows: 2, placeholder: 'e.g. The user is vegetarian.' });
  const tags = h('input', { id: 'add-tags', placeholder: 'tags, comma separated' });
  const pinned = h('input', { id: 'add-pinned', type: 'checkbox' });
  const error = h('p', { class: 'muted', id: 'add-error' });
  const add = h('button', {
    id: 'add-button',
    onclick: async () => {
      error.textContent = '';
      const common = { userId: app.userId(), text: text.value, tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean), pinned: pinned.checked };
      try {
        if (kind.value === 'fact') await app.memory.facts.add({ ...common, category: category.value as (typeof CATEGORIES)[number] });
        else await app.memory.episodes.add(common);
        // Cleared only if it still holds what was added: the lists refresh on the write's change event, which can
        // arrive before this call's answer, and whatever was typed meanwhile is the next memory, not this one.
        if (text.value === common.text) text.value = '';
        app.refresh();
      } catch (e) {
        error.textContent = (e as Error).message;
      }
    },
  }, 'Add memory');
  mount(root, h('h2', {}, 'Add a memory'), h('div', { class: 'flex' }, kind, category, h('label', {}, pinned, ' pinned')), text, tags, h('div', { class: 'flex' }, add), error);
}
