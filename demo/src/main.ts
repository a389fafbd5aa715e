import { createMemory, type Memory, type MemoryOptions } from 'engram';
import type { App } from './app.js';
import { h, mount } from './dom.js';
import { configureProxy, demoProvider, withRecordedReplies } from './llm.js';
import { activityTab } from './panels/activity.js';
import { addPanel } from './panels/add.js';
import { chatPanel } from './panels/chat.js';
import { dataTab } from './panels/data.js';
import { episodesTab } from './panels/episodes.js';
import { factsTab } from './panels/facts.js';
import { recallTab } from './panels/recall.js';
import { syncPanel } from './panels/sync.js';
import { tasksTab } from './panels/tasks.js';
import { runSampleTask } from './sample-task.js';
import { SAMPLE_CONVERSATION } from './sample-conversation.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
const progress = $<HTMLProgressElement>('progress');
const userInput = $<HTMLInputElement>('user-id');

/**
 * `?device=<name>`: this window is a device of its own (its own store,
 * `engram-demo-<name>`), syncing through the demo server's hub.
 */
const device = (() => {
  const name = new URLSearchParams(location.search).get('device');
  return name && /^[a-z0-9-]{1,32}$/i.test(name) ? name : null;
})();
/**
 * The key every device of the demo seals its rows with. Demo only: a real app
 * gives a user's devices a key the hub never sees (docs/sync.md, "The cryptography").
 */
const DEMO_SYNC_SECRET = 'engram demo: the key every window of this demo shares';

function setStatus(text: string, warn = false): void {
  status.textContent = text;
  status.className = warn ? 'warn' : '';
}

async function boot(): Promise<void> {
  setStatus('Loading the embedding model…');
  progress.hidden = false;
  // Offline (an installed PWA with no network), the server's config is out of reach: run without an LLM.
  const config = (await fetch('/api/config')
    .then((response) => response.json())
    .catch(() => ({ llm: false, model: null, sync: null }))) as { llm: boolean; model: string | null; sync?: { token: string; space: string } | null };
  configureProxy(config.llm);

  const embedder = {
    model: 'minishlab/potion-base-4M-int8',
    localModelPath: `${location.origin}/models/`,
    allowRemoteModels: false,
    wasmPaths: `${location.origin}/ort/`,
  };
  // Everything heavy (model, IndexedDB, index) runs in a Web Worker; the page only draws.
  const hub = config.sync ?? null;
  if (device) document.title = `${device} · ${document.title}`;
  const memory: Memory = await createMemory({
    name: device ? `engram-demo-${device}` : 'engram-demo',
    // A round every second while the window is open (and soon after each local write): the other window's writes show within about a second.
    ...(device && hub
      ? { sync: { remote: { url: `${location.origin}/sync`, headers: { authorization: `Bearer ${hub.token}` } }, key: { secret: DEMO_SYNC_SECRET }, space: hub.space, intervalMs: 1000 } }
      : {}),
    embedder,
    llm: demoProvider,
    // A demo shows memory forming within minutes: no cooldowns, and a close follow-up within the
    // merge window becomes its own episode chained to the first (novelty ≥ 0.10 instead of 0.15)
    // rather than being merged into it, so the inspector can show an arc.
    capture: { cooldownTurns: 0, cooldownMinutes: 0, noveltyMin: 0.1 },
    onProgress: (p) => {
      if (p.progress !== undefined) progress.value = p.progress;
      setStatus(p.message ?? `${p.phase}${p.file ? ` ${p.file}` : ''}…`);
    },
  });
  progress.hidden = true;
  const info = await memory.info();
  setStatus(config.llm ? `Ready · LLM: ${config.model} via this server's proxy` : 'Ready · no LLM configured (offline mode)', !config.llm);
  // The count follows the store (every change redraws it), not the number at start-up.
  const count = $('count');
  const showCount = async () => {
    const n = (await memory.info()).indexed;
    count.textContent = `${n} ${n === 1 ? 'memory' : 'memories'}`;
  };
  count.textContent = `${info.indexed} ${info.indexed === 1 ? 'memory' : 'memories'}`;

  let timer: ReturnType<typeof setTimeout> | undefined;
  let activeTab = 'Facts';
  const tabs: Record<string, (root: HTMLElement, app: App) => unknown> = {
    Facts: factsTab,
    Episodes: episodesTab,
    Tasks: tasksTab,
    Recall: recallTab,
    Activity: activityTab,
    Data: dataTab,
  };
  const tabBody = $('tab-body');
  const drawOnce = async () => {
    mount($('tabs'), Object.keys(tabs).map((name) => h('button', { id: `tab-${name.toLowerCase()}`, 'aria-selected': String(name === activeTab), onclick: () => { activeTab = name; void draw(); } }, name)));
    await tabs[activeTab]!(tabBody, app);
  };
  // One draw at a time, in the order asked: a tab mounts after its reads, and a draw whose reads answered late
  // (a refresh on a write's change event) must not replace the tab a later click drew.
  let drawing: Promise<void> = Promise.resolve();
  const draw = () => (drawing = drawing.then(drawOnce, drawOnce));
  const app: App = {
    memory,
    userId: () => userInput.value.trim() || 'demo-user',
    llmAvailable: config.llm,
    setStatus,
    refresh: () => {
      clearTimeout(timer);
      // Recall explorer keeps its query; other tabs redraw from the store.
      timer = setTimeout(() => {
        void showCount();
        if (activeTab !== 'Recall') void draw();
      }, 50);
    },
  };
  memory.on('change', () => app.refresh());
  memory.on('episode', (e) => {
    setStatus(`Episode ${e.outcome}${e.reason ? `: ${e.reason}` : ''}`);
    app.refresh();
  });
  userInput.addEventListener('change', () => app.refresh());

  const chat = chatPanel($('chat'), app);
  addPanel($('add'), app);
  syncPanel($('sync'), app, { device: hub ? device : null, hub: hub !== null });
  // A window opened as a device shows its sync status first: two such windows side by side are the point.
  if (device && hub) $('left').prepend($('sync'));
  const sampleButton = h('button', { id: 'load-sample', onclick: async () => {
    sampleButton.disabled = true;
    await withRecordedReplies(async () => {
      for (const turn of SAMPLE_CONVERSATION) {
        chat.say('user', turn.user, '(sample)');
        chat.say('assistant', turn.assistant, '(recorded)');
        await memory.observe({ userId: app.userId(), sessionId: 'sample', user: turn.user, assistant: turn.assistant });
      }
      await memory.idle();
    });
    setStatus('Sample conversation loaded (recorded LLM replies).');
    sampleButton.disabled = false;
    app.refresh();
  } }, 'Load the sample conversation');
  const taskButton = h('button', { id: 'run-task', onclick: async () => {
    taskButton.disabled = true;
    const done = await runSampleTask(memory, app.userId());
    setStatus(`Sample task completed: reward ${done.reward.total.toFixed(2)}, ${done.patternIds.length} patterns`);
    activeTab = 'Tasks';
    taskButton.disabled = false;
    app.refresh();
  } }, 'Run a sample agent task');
  mount(
    $('samples'),
    h('h2', {}, 'Try it'),
    h('p', { class: 'muted' }, 'The sample conversation plays through observe() with ', h('span', { class: 'recorded' }, 'recorded LLM replies'), ', so it works offline.'),
    h('div', { class: 'flex' }, sampleButton, taskButton),
  );
  await draw();
  // `open` lets browser tests open memories of their own (other names, settings) on the same worker path and model.
  const open = (options: Omit<MemoryOptions, 'embedder'>) => createMemory({ embedder, ...options });
  (window as unknown as { engramDemo: unknown }).engramDemo = { memory, ready: true, open };
}

// Offline after the first visit: the service worker (demo/service-worker.js) keeps the app's files.
if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register('/sw.js').catch((error: unknown) => console.warn('engram demo: no offline support:', error));
}

boot().catch((error: unknown) => {
  progress.hidden = true;
  setStatus(`Failed to start: ${(error as Error).message}`, true);
  console.error(error);
});
