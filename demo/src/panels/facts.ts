import type { Fact } from 'engram';
import type { App } from '../app.js';
import { fmt, fmtDate, h, mount } from '../dom.js';

/**
 * Facts are drawn a page at a time: the tab redraws on every change, and
 * building thousands of rows would block the main thread the worker keeps free.
 */
const PAGE = 25;
let shown = PAGE;

/** Current facts with edit, pin, delete, and each fact's version history. */
export async function factsTab(root: HTMLElement, app: App): Promise<void> {
  // One more than shown tells whether there are more, without counting them all.
  const facts = await app.memory.facts.list({ userId: app.userId(), limit: shown + 1 });
  const more = facts.length > shown;
  const rows = facts.slice(0, shown).map((f) => factRow(f, app));
  mount(
    root,
    h('h2', {}, more ? `Facts (newest ${shown})` : `Facts (${facts.length})`),
    facts.length
      ? h('table', { id: 'facts-table' }, h("tr", {}, h("th", {}, "fact"), h("th", {}, "category"), h("th", {}, "importance"), h("th", {}, "since"), h("th", {}, "")), rows.flat())
      : h('p', { class: 'muted' }, 'No facts yet.'),
    more ? h('button', { id: 'facts-more', onclick: () => { shown += PAGE; void factsTab(root, app); } }, `Show ${PAGE} more`) : null,
  );
}

function factRow(fact: Fact, app: App): HTMLElement[] {
  const history = h('td', { colspan: 5, class: 'muted' });
  const historyRow = h('tr', { hidden: true }, history);
  const row = h(
    'tr',
    { 'data-id': fact.id, class: 'fact' },
    h('td', { class: 'fact-text' }, fact.pinned ? '📌 ' : '', fact.text),
    h('td', {}, fact.category),
    h('td', { class: 'num' }, fmt(fact.importance, 2)),
    h('td', {}, fmtDate(fact.validFrom)),
    h(
      'td',
      { class: 'row-actions' },
      h('button', { onclick: async () => {
        const text = prompt('Edit fact', fact.text);
        if (text && text !== fact.text) await app.memory.facts.update(fact.id, { text });
        app.refresh();
      } }, 'edit'),
      h('button', { onclick: async () => { await app.memory.facts.update(fact.id, { pinned: !fact.pinned }); app.refresh(); } }, fact.pinned ? 'unpin' : 'pin'),
      h('button', { class: 'history', onclick: async () => {
        const versions = await app.memory.facts.history(fact.id);
        mount(history, h('ol', {}, versions.map((v) => h('li', {}, `${v.text} — ${v.status}, valid ${fmtDate(v.validFrom)} → ${v.validUntil ? fmtDate(v.validUntil) : 'now'}${v.supersededBy ? `, superseded by ${v.supersededBy.slice(0, 8)}` : ''}`))));
        historyRow.hidden = !historyRow.hidden;
      } }, 'history'),
      h('button', { class: 'delete', onclick: async () => { await app.memory.facts.delete(fact.id); app.refresh(); } }, 'delete'),
    ),
  );
  return [row, historyRow];
}
