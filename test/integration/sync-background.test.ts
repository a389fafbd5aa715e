import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMemory, type Memory, type SyncStatus } from '../../src/index.node.js';
import { realEmbedder, snapshot } from '../support/memory.js';
import { SECRET, startHub, syncedMemory } from '../support/sync-memories.js';

/**
 * Sync running by itself (`createMemory({ sync })` starts it): a write on
 * one device reaches the other without the app asking, the status is an
 * event and a live query, and two Node replicas on durable `directory`
 * stores converge, one resuming from its cursor after it is closed and
 * opened again.
 */
type Hub = Awaited<ReturnType<typeof startHub>>;
let hub: Hub;
let root: string;
beforeAll(async () => {
  hub = await startHub({ 'token-1': 'space-1', 'token-2': 'space-2' });
  root = mkdtempSync(join(tmpdir(), 'engram-sync-'));
});
afterAll(async () => {
  await hub?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Resolves with the first event for which `test` holds (no time bound but the test's). */
function until<T>(subscribe: (listener: (value: T) => void) => () => void, test: (value: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const stop = subscribe((value) => {
      if (!test(value)) return;
      stop();
      resolve(value);
    });
  });
}

it('started, a write on one device reaches the other by itself; status is an event and a live query; stop stops', async () => {
  const a = await syncedMemory(hub.url, 'token-1', 'space-1', { sync: undefined });
  await a.sync.start({ remote: { url: hub.url, headers: { authorization: 'Bearer token-1' } }, key: { secret: SECRET }, space: 'space-1', intervalMs: 20 });
  const b = await syncedMemory(hub.url, 'token-1', 'space-1', {});
  await b.sync.start({ remote: { url: hub.url, headers: { authorization: 'Bearer token-1' } }, key: { secret: SECRET }, space: 'space-1', intervalMs: 20 });
  const statuses: SyncStatus[] = [];
  const live = b.live({ sync: {} });
  const stopLive = live.subscribe((snapshot) => snapshot.data && statuses.push(snapshot.data));
  try {
    const arrived = until<{ written: string[] }>((l) => b.on('change', l), (event) => event.written.length > 0);
    const fact = await a.facts.add({ userId: 'ana', text: 'Ana takes the 8:10 ferry to work' });
    expect((await arrived).written).toContain(fact.id);
    expect((await b.facts.get(fact.id)).text).toBe(fact.text);
    expect(statuses.some((s) => s.state === 'syncing')).toBe(true);
    expect(statuses.some((s) => s.state === 'idle' && s.lastSyncedAt !== null && s.lastError === null)).toBe(true);
    expect(b.sync.status.device).toMatch(/^[A-Za-z0-9_-]{22}$/);

    await b.sync.stop();
    expect(b.sync.status.state).toBe('stopped');
    await a.facts.add({ userId: 'ana', text: 'Ana parks at the north gate' });
    await a.sync.now();
    // Stopped: B takes nothing until asked.
    expect((await b.facts.list({ userId: 'ana' })).map((f) => f.text)).toEqual([fact.text]);
    expect((await b.sync.now()).applied).toBe(1);
  } finally {
    stopLive();
    await a.close();
    await b.close();
  }
});

it('two Node replicas, each on its own durable directory store, converge; one resumes from its cursor after a reopen', async () => {
  const embedder = await realEmbedder();
  const directory = join(root, 'replica');
  const sync = { remote: { url: hub.url, headers: { authorization: 'Bearer token-2' }, retries: 0 }, key: { secret: SECRET }, space: 'space-2', autoStart: false };
  const openDurable = (): Promise<Memory> => createMemory({ name: 'agent', directory, embedder, sync });
  // Two replicas of one Node agent: each its own folder (the store lock refuses a second process on one folder).
  const a = await createMemory({ name: 'agent', directory: join(root, 'replica-a'), embedder, sync });
  try {
    await a.facts.add({ userId: 'ana', text: 'The build server is in rack 4' });
    await a.sync.now();
    let b = await openDurable();
    expect((await b.sync.now()).applied).toBe(1);
    const device = b.sync.status.device;
    await b.facts.add({ userId: 'ana', text: 'The backup runs at 02:00' });
    await b.close();

    await a.facts.add({ userId: 'ana', text: 'The VPN certificate expires in June' });
    await a.facts.add({ userId: 'ana', text: 'Deploys are frozen on Fridays' });
    await a.sync.now();
    b = await openDurable();
    const round = await b.sync.now();
    // Same device, its unpushed write pushed, and only the two rows after its cursor pulled.
    expect(b.sync.status.device).toBe(device);
    expect(round).toMatchObject({ pushed: 1, applied: 2 });
    await a.sync.now();
    expect(await snapshot(b)).toEqual(await snapshot(a));
    await b.close();
  } finally {
    await a.close();
  }
});
