import type { SyncStatus } from 'engram';
import type { App } from '../app.js';
import { h, mount } from '../dom.js';

/**
 * Sync between windows: each window opened with `?device=<name>` is a
 * device with its own store, syncing through the demo server's hub. The
 * panel follows `memory.live({ sync: {} })`: the state, the changes the hub
 * does not hold yet, the last successful round and the last error.
 */
export function syncPanel(root: HTMLElement, app: App, setup: { device: string | null; hub: boolean }): void {
  if (!setup.device) {
    const link = (device: string) => h('a', { href: `?device=${device}`, target: '_blank' }, `?device=${device}`);
    mount(
      root,
      h('h2', {}, 'Sync'),
      setup.hub
        ? h('p', { id: 'sync-off', class: 'muted' }, 'Open this page as two devices side by side, ', link('phone'), ' and ', link('laptop'), ': each keeps its own store and syncs through this server’s hub, end-to-end encrypted.')
        : h('p', { id: 'sync-off', class: 'muted' }, 'This server runs no sync hub (start it with npm run demo).'),
    );
    return;
  }
  const cell = (id: string) => h('td', { id });
  const cells = { state: cell('sync-state'), pending: cell('sync-pending'), last: cell('sync-last'), error: cell('sync-error'), id: cell('sync-device') };
  const row = (label: string, td: HTMLElement) => h('tr', {}, h('th', {}, label), td);
  const result = h('p', { id: 'sync-result', class: 'muted', role: 'status' });
  const now = h('button', {
    id: 'sync-now',
    onclick: async () => {
      try {
        const round = await app.memory.sync.now();
        result.textContent = `Pushed ${round.pushed}, applied ${round.applied}.`;
      } catch (e) {
        result.textContent = `Sync failed: ${(e as Error).message}`;
      }
    },
  }, 'Sync now');
  mount(
    root,
    h('h2', {}, `Sync · device “${setup.device}”`),
    h('table', { id: 'sync-status' }, row('status', cells.state), row('pending changes', cells.pending), row('last synced', cells.last), row('last error', cells.error), row('device id', cells.id)),
    h('div', { class: 'flex' }, now),
    result,
  );
  const render = (status: SyncStatus) => {
    cells.state.textContent = status.state;
    cells.pending.textContent = String(status.pending);
    cells.last.textContent = status.lastSyncedAt === null ? 'never' : `${new Date(status.lastSyncedAt).toISOString().slice(11, 19)} UTC`;
    cells.error.textContent = status.lastError ? `${status.lastError.reason ?? status.lastError.code}: ${status.lastError.message}` : 'none';
    cells.id.textContent = status.device ?? '(not started)';
  };
  render(app.memory.sync.status);
  app.memory.live({ sync: {} }).subscribe(({ data }) => data && render(data));
}
