import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import type { Embedder, Memory } from '../../src/index.js';
import { realEmbedder, snapshot } from '../support/memory.js';
import { startHub, syncedMemory } from '../support/sync-memories.js';

/**
 * Memories syncing through a real hub: each memory has its own store
 * (fake-indexeddb), the hub is createSyncHandler on PGlite served on
 * loopback, rounds are `memory.sync.now()` so the schedule is the test's.
 */
type Hub = Awaited<ReturnType<typeof startHub>>;
let hub: Hub;
/** What the hostile hub does to the next pull answers (null: pass them through). */
let meddle: ((body: Record<string, unknown>) => Record<string, unknown>) | null = null;
const open: Memory[] = [];
let spaces = 0;

beforeAll(async () => {
  hub = await startHub(
    { 'token-a': 'space-a', 'token-b': 'space-b', 'token-c': 'space-c', 'token-d': 'space-d', 'token-e': 'space-e', 'token-f': 'space-f' },
    {
      around: async (request, handler) => {
        const response = await handler(request);
        if (!meddle || !new URL(request.url).pathname.endsWith('/pull') || !response.ok) return response;
        const body = meddle((await response.json()) as Record<string, unknown>);
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    },
  );
});
afterAll(async () => {
  for (const memory of open) await memory.close();
  await hub?.close();
});

/** Two or more devices of a fresh space. */
async function devices(count: number, options: Parameters<typeof syncedMemory>[3] = {}): Promise<{ space: string; token: string; memories: Memory[] }> {
  const letter = 'abcdef'[spaces++]!;
  const space = `space-${letter}`;
  const token = `token-${letter}`;
  const memories: Memory[] = [];
  for (let i = 0; i < count; i++) memories.push(await syncedMemory(hub.url, token, space, options));
  open.push(...memories);
  return { space, token, memories };
}

/** Rounds on every device, in turn, until one whole pass pushes and applies nothing; the rows each device pushed. */
async function converge(memories: Memory[]): Promise<number[]> {
  const pushed = memories.map(() => 0);
  for (let pass = 1; pass <= 8; pass++) {
    let moved = 0;
    for (const [i, memory] of memories.entries()) {
      const round = await memory.sync.now();
      pushed[i]! += round.pushed;
      moved += round.pushed + round.applied;
    }
    if (moved === 0) return pushed;
  }
  throw new Error('no convergence after 8 passes');
}

/** An embedder that counts the texts it is asked for (and may claim another id). */
async function countingEmbedder(id?: string): Promise<Embedder & { texts: string[] }> {
  const inner = await realEmbedder();
  const texts: string[] = [];
  return { id: id ?? inner.id, dimension: inner.dimension, texts, embed: (batch) => (texts.push(...batch), inner.embed(batch)) };
}

const ids = (hits: { memory: { id: string } }[]) => hits.map((hit) => hit.memory.id);

describe('memories syncing through a hub', () => {
  it('converge to the same export and the same recall after offline edits on both sides, every kind, without pushing remote changes back', async () => {
    const { memories: [a, b] } = await devices(2);
    // Offline: each device writes on its own.
    await a!.facts.add({ userId: 'ana', text: 'Ana is allergic to peanuts', category: 'profile' });
    const moved = await a!.facts.add({ userId: 'ana', text: 'Ana moved to Lisbon in March', category: 'profile' });
    await a!.episodes.add({ userId: 'ana', text: 'Booked the train to Porto for the conference', pinned: false });
    await a!.turns.add({ userId: 'ana', sessionId: 's1', speaker: 'user', text: 'Remind me about the dentist on Friday' });
    await a!.profile.update('ana', { city: 'Lisbon' });
    const task = await a!.tasks.start({ userId: 'ana', description: 'Fix the flaky login test', type: 'debugging', context: { complexity: 'simple', domain: 'web' } });
    task.log({ tool: 'run_tests', action: 'ran the test 20 times', parameters: {}, result: { kind: 'error', message: 'failed 3 times' }, latencyMs: 9 });
    await task.complete({ kind: 'success', verdict: 'a race on the session cookie', artifacts: [] });
    await b!.facts.add({ userId: 'ana', text: 'Ana plays the cello on Sundays', category: 'preference' });
    await b!.episodes.add({ userId: 'ana', text: 'Discussed a vegetarian menu for the birthday dinner' });
    await b!.profile.update('ana', { name: 'Ana' });
    await a!.idle();
    await b!.idle();

    expect(await snapshot(a!)).not.toEqual(await snapshot(b!));
    const pushed = await converge([a!, b!]);
    expect(await snapshot(b!)).toEqual(await snapshot(a!));
    expect(await b!.profile.get('ana')).toMatchObject({ name: 'Ana', city: 'Lisbon' });
    expect((await b!.facts.get(moved.id)).text).toBe('Ana moved to Lisbon in March');
    expect((await b!.tasks.get(task.id)).steps).toHaveLength(1);
    for (const query of ['where does Ana live', 'food allergy', 'music hobby', 'login test race']) {
      expect(ids(await b!.recall(query, { userId: 'ana', k: 5, touch: false }))).toEqual(ids(await a!.recall(query, { userId: 'ana', k: 5, touch: false })));
    }
    expect(a!.sync.status).toMatchObject({ pending: 0, lastError: null });
    expect(b!.sync.status).toMatchObject({ pending: 0, lastError: null });

    // Not pushed back: each device pushed its own writes (A: 2 facts, episode, turn, profile, task, step, pattern;
    // B: fact, episode, profile) and, once, the profile both edited, merged per field on A (the join must reach
    // the hub, which keeps one row per record). Nothing it pulled.
    expect(pushed).toEqual([9, 3]);
    const rows = await hub.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM engram_sync_changes WHERE space = $1`, ['space-a']);
    expect(rows.rows[0]!.n).toBe(10); // one row per record: 10 records (the profile is one)
    expect((await snapshot(a!)).filter((line) => !line.startsWith('{"kind":"vector"')).length).toBe(10);
  });

  it('carries vectors when both sides use the same embedder, and re-embeds through the import path when not', async () => {
    const same = await countingEmbedder();
    const other = await countingEmbedder('another-model/v2');
    const { memories: [a] } = await devices(1);
    const { token, space } = { token: `token-${'abcdef'[spaces - 1]}`, space: `space-${'abcdef'[spaces - 1]}` };
    const b = await syncedMemory(hub.url, token, space, { embedder: same });
    const c = await syncedMemory(hub.url, token, space, { embedder: other });
    open.push(b, c);
    const texts = ['Ana keeps her passport in the blue drawer', 'The spare key is under the third flowerpot'];
    for (const text of texts) await a!.facts.add({ userId: 'ana', text });
    await converge([a!, b, c]);

    expect(same.texts.filter((t) => texts.includes(t))).toEqual([]);
    expect(other.texts.filter((t) => texts.includes(t)).sort()).toEqual([...texts].sort());
    for (const memory of [b, c]) {
      expect((await memory.recall('where is the passport', { userId: 'ana', k: 1, touch: false }))[0]!.memory.text).toBe(texts[0]);
    }
    expect(await snapshot(b)).toEqual(await snapshot(a!));
  });

  it('last writer wins per record, a delete is a tombstone, profiles merge per field', async () => {
    const t0 = Date.now();
    const { token, space } = { token: `token-${'abcdef'[spaces]}`, space: `space-${'abcdef'[spaces]}` };
    spaces++;
    // The laptop's clock runs a second behind the phone's: its offline edits are the earlier ones.
    const phone = await syncedMemory(hub.url, token, space, { clock: () => Date.now() + 1000 });
    const laptop = await syncedMemory(hub.url, token, space, { clock: () => Date.now() });
    open.push(phone, laptop);
    const f = await phone.facts.add({ userId: 'ana', text: 'Ana lives in Porto' }, { merge: false });
    const gone = await phone.facts.add({ userId: 'ana', text: 'Ana drives a red car' }, { merge: false });
    await phone.profile.update('ana', { city: 'Porto' });
    await converge([phone, laptop]);

    // Offline on both: the same fact edited; a fact deleted on the phone and edited on the laptop; profile fields.
    await laptop.facts.update(f.id, { text: 'Ana lives in Lisbon' });
    await phone.facts.update(f.id, { text: 'Ana lives in Braga' });
    await phone.facts.delete(gone.id);
    await laptop.facts.update(gone.id, { text: 'Ana drives a blue car' });
    await laptop.profile.update('ana', { name: 'Ana', city: 'Lisbon' });
    await phone.profile.update('ana', { city: 'Faro' });
    expect(Date.now() + 1000).toBeGreaterThan(t0); // (the phone's clock is ahead for every write above)
    await converge([laptop, phone]);

    for (const memory of [phone, laptop]) {
      expect((await memory.facts.get(f.id)).text).toBe('Ana lives in Braga');
      await expect(memory.facts.get(gone.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await memory.profile.get('ana')).toMatchObject({ name: 'Ana', city: 'Faro' });
    }
    expect(await snapshot(laptop)).toEqual(await snapshot(phone));
  });
});

describe('a hostile hub', () => {
  it('a tampered, a replayed and a foreign row, and a wrong key, are typed errors and leave the store as it was', async () => {
    const { token, space, memories: [a, b] } = await devices(2);
    await a!.facts.add({ userId: 'ana', text: 'Ana was born in Coimbra' });
    await a!.sync.now();
    expect((await b!.sync.now()).applied).toBe(1);
    const before = await snapshot(b!);
    await a!.facts.add({ userId: 'ana', text: 'Ana studied law' });
    await a!.sync.now();

    type Row = Record<string, string | number>;
    const refused = async (change: (body: { rows: Row[]; spaceTag: string; next: string }) => void, reason: string) => {
      meddle = (body) => (change(body as never), body);
      try {
        const error = await b!.sync.now().then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(SyncError);
        expect((error as SyncError).reason).toBe(reason);
      } finally {
        meddle = null;
      }
      expect(b!.sync.status.lastError).toMatchObject({ code: 'SYNC', reason });
      expect(await snapshot(b!)).toEqual(before);
    };
    // A flipped byte of ciphertext.
    await refused((body) => {
      const row = body.rows[0]!;
      const text = row.ciphertext as string;
      row.ciphertext = (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    }, 'tampered');
    // The row B already took (sequence 1 of A), handed out again after the cursor.
    await refused((body) => {
      body.rows[0]!.seq = 1;
    }, 'replayed');
    // Another space's rows (its space tag).
    await refused((body) => {
      body.spaceTag = body.spaceTag.startsWith('A') ? `B${body.spaceTag.slice(1)}` : `A${body.spaceTag.slice(1)}`;
    }, 'foreign_space');

    // The honest hub again: B takes the row.
    await b!.sync.now();
    expect(await snapshot(b!)).not.toEqual(before);
    expect(await snapshot(b!)).toEqual(await snapshot(a!));

    // A device given another key: refused on its first pull, and it stores nothing.
    const wrong = await syncedMemory(hub.url, token, space, { secret: 'another-secret-of-at-least-32-bytes!!' });
    open.push(wrong);
    await expect(wrong.sync.now()).rejects.toMatchObject({ code: 'SYNC', reason: 'wrong_key' });
    expect(await snapshot(wrong)).toEqual([]);
  });
});

