import type { App } from '../app.js';
import { fmt, fmtDate, h, mount } from '../dom.js';

/** Task episodes: reward parts, reflection, steps, and the patterns learned. */
export async function tasksTab(root: HTMLElement, app: App): Promise<void> {
  const userId = app.userId();
  const tasks = await app.memory.tasks.list({ userId, limit: 20 });
  const patterns = await app.memory.patterns.relevant({ domain: tasks[0]?.context.domain ?? 'billing', language: tasks[0]?.context.language }, { userId, k: 10 });
  mount(
    root,
    h('h2', {}, `Task episodes (${tasks.length})`),
    tasks.length ? null : h('p', { class: 'muted' }, 'No tasks yet: try "Run a sample agent task".'),
    tasks.map((t) =>
      h('div', { class: 'arc task', 'data-id': t.id },
        h('strong', {}, t.description),
        h('div', { class: 'muted' }, `${t.type} · ${t.context.domain}${t.context.language ? ` / ${t.context.language}` : ''} · ${t.status} · ${t.stepCount} steps · started ${fmtDate(t.startedAt)}`),
        t.reward
          ? h('table', { class: 'reward' },
              h('tr', {}, ['total', 'base', 'abstention', 'efficiency', 'complexity', 'quality', 'learning'].map((c) => h('th', {}, c))),
              h('tr', {}, [t.reward.total, t.reward.base, t.reward.abstention, t.reward.efficiency, t.reward.complexityBonus, t.reward.qualityMultiplier, t.reward.learningBonus].map((v) => h('td', { class: 'num' }, fmt(v)))))
          : null,
        t.reflection
          ? h('ul', {},
              t.reflection.successes.map((s) => h('li', {}, `✓ ${s}`)),
              t.reflection.improvements.map((s) => h('li', {}, `△ ${s}`)),
              t.reflection.insights.map((s) => h('li', {}, `★ ${s}`)))
          : null,
      ),
    ),
    h('h2', {}, `Patterns (${patterns.length})`),
    patterns.length
      ? h('table', { id: 'patterns' }, h('tr', {}, h('th', {}, 'pattern'), h('th', {}, 'kind'), h('th', {}, 'seen'), h('th', {}, 'confidence')),
          patterns.map((p) => h('tr', {}, h('td', {}, p.description), h('td', {}, p.kind), h('td', { class: 'num' }, p.occurrences), h('td', { class: 'num' }, fmt(p.confidence, 2)))))
      : h('p', { class: 'muted' }, 'None yet.'),
  );
}
