import type { Episode } from 'engram';
import type { App } from '../app.js';
import { fmtDate, h, mount } from '../dom.js';

/** Episodes grouped into arcs (parent chains drawn as indented steps), plus a chronological replay view. */
export async function episodesTab(root: HTMLElement, app: App): Promise<void> {
  const episodes = await app.memory.episodes.list({ userId: app.userId(), order: 'asc' });
  const byId = new Map(episodes.map((e) => [e.id, e]));
  const children = new Map<string, Episode[]>();
  const roots: Episode[] = [];
  for (const e of episodes) {
    if (e.parentId && byId.has(e.parentId)) children.set(e.parentId, [...(children.get(e.parentId) ?? []), e]);
    else roots.push(e);
  }
  const arc = (e: Episode, depth: number): HTMLElement[] => [
    h('div', { class: `step${depth === 0 ? ' root' : ''}`, style: `margin-left:${depth * 1.2}rem`, 'data-id': e.id },
      h('strong', { class: 'episode-title' }, e.goal ?? e.text.split('\n')[0]),
      h('span', { class: 'muted' }, ` — ${fmtDate(e.startedAt)}, ${e.quality ?? e.outcomeStatus}, ${e.provenance}${e.pinned ? ', pinned' : ''}${e.state !== 'active' ? `, ${e.state}` : ''}`),
      e.outcome ? h('div', { class: 'muted' }, `Outcome: ${e.outcome}`) : null,
      e.lessons ? h('div', { class: 'muted' }, `Lesson: ${e.lessons}`) : null,
      e.tags.length ? h('div', { class: 'muted' }, `Tags: ${e.tags.join(', ')}`) : null,
      h('div', { class: 'row-actions' },
        h('button', { onclick: async () => { await app.memory.episodes.update(e.id, { pinned: !e.pinned }); app.refresh(); } }, e.pinned ? 'unpin' : 'pin'),
        h('button', { onclick: async () => {
          const text = prompt('Edit episode text', e.text);
          if (text && text !== e.text) await app.memory.episodes.update(e.id, { text });
          app.refresh();
        } }, 'edit'),
        e.state !== 'archived' ? h('button', { onclick: async () => { await app.memory.episodes.update(e.id, { state: 'archived' }); app.refresh(); } }, 'archive') : null,
        h('button', { class: 'delete', onclick: async () => { await app.memory.episodes.delete(e.id); app.refresh(); } }, 'delete'),
      ),
    ),
    ...(children.get(e.id) ?? []).flatMap((c) => arc(c, depth + 1)),
  ];

  const topic = h('input', { id: 'replay-topic', placeholder: 'topic, e.g. databases' });
  const replay = h('pre', { id: 'replay' });
  mount(
    root,
    h('h2', {}, `Episodes (${episodes.length})`),
    episodes.length
      ? h('div', { id: 'episodes' }, roots.map((r) => {
          const steps = arc(r, 0);
          // A chain (explicit parentId or auto-chained by similarity) is one arc: say so above its steps.
          return h('div', { class: `arc${steps.length > 1 ? ' chained' : ''}` }, steps.length > 1 ? h('div', { class: 'arc-label' }, `Arc of ${steps.length} episodes`) : null, steps);
        }))
      : h('p', { class: 'muted' }, 'No episodes yet.'),
    h('h2', {}, 'Chronological replay'),
    h('div', { class: 'flex' }, topic, h('button', { id: 'replay-button', onclick: async () => {
      const sequence = await app.memory.episodes.sequence(topic.value || 'work', { userId: app.userId(), limit: 10, minRelevance: 0.2 });
      replay.textContent = sequence.length ? app.memory.formatReplay(sequence) : 'Nothing on that topic.';
    } }, 'Replay')),
    replay,
  );
}
