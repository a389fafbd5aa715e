import type { App } from '../app.js';
import { fmt, h, mount } from '../dom.js';

/** The recall explorer: every hit with each part of its score. */
export function recallTab(root: HTMLElement, app: App): void {
  const query = h('input', { id: 'recall-query', placeholder: 'ask something, e.g. which database?' , size: 40 });
  const out = h('div', { id: 'recall-results' });
  const context = h('pre', { id: 'recall-context' });
  const run = async () => {
    if (!query.value.trim()) return;
    const hits = await app.memory.recall(query.value, { userId: app.userId(), k: 10, touch: false });
    mount(
      out,
      hits.length
        ? h('table', {},
            h('tr', {}, ['memory', 'type', 'score', 'similarity', 'keyword', 'recency', 'importance', 'pinned'].map((c) => h('th', {}, c))),
            hits.map((hit) => h('tr', { class: 'hit' },
              h('td', {}, hit.memory.text),
              h('td', {}, hit.memory.type),
              h('td', { class: 'num' }, fmt(hit.score)),
              h('td', { class: 'num' }, fmt(hit.parts.similarity)),
              h('td', { class: 'num' }, fmt(hit.parts.keyword)),
              h('td', { class: 'num' }, fmt(hit.parts.recency)),
              h('td', { class: 'num' }, fmt(hit.parts.importance, 2)),
              h('td', { class: 'num' }, String(hit.parts.pinned)),
            )))
        : h('p', { class: 'muted' }, 'No memories match.'),
    );
    context.textContent = app.memory.formatContext(hits, { profileLine: await app.memory.profileLine(app.userId()) });
  };
  mount(root, h('h2', {}, 'Recall explorer'), h('div', { class: 'flex' }, query, h('button', { id: 'recall-button', onclick: () => void run() }, 'Recall')), out, h('h2', {}, 'As prompt context (formatContext)'), context);
}
