import type { App } from '../app.js';
import { fmtDate, h, mount } from '../dom.js';

/** The background job queue and the event log. */
export async function activityTab(root: HTMLElement, app: App): Promise<void> {
  const { jobs, events } = await app.memory.activity({ limit: 100 });
  mount(
    root,
    h('h2', {}, `Background jobs (${jobs.length})`),
    jobs.length
      ? h('table', { id: 'jobs' }, h('tr', {}, h('th', {}, 'kind'), h('th', {}, 'user'), h('th', {}, 'attempts'), h('th', {}, 'queued')), jobs.map((j) => h('tr', {}, h('td', {}, j.kind), h('td', {}, j.userId), h('td', {}, j.attempts), h('td', { class: 'when' }, fmtDate(j.createdAt)))))
      : h('p', { class: 'muted' }, 'Queue is empty.'),
    h('h2', {}, 'Event log'),
    h('table', { id: 'events' }, h('tr', {}, h('th', {}, 'when'), h('th', {}, 'type'), h('th', {}, 'user'), h('th', {}, 'details')), events.map((e) => h('tr', {}, h('td', { class: 'when' }, fmtDate(e.at)), h('td', {}, e.type), h('td', {}, e.userId ?? ''), h('td', { class: 'muted' }, JSON.stringify(e.data))))),
  );
}
