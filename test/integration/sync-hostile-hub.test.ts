import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import { fromBase64Url, toBase64Url } from '../../src/replication/base64url.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { createHubClient } from '../../src/replication/hub-client.js';
import type { PullResponse, PulledRow } from '../../src/replication/protocol.js';
import { sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../../src/replication/sync-key.js';
import { syncRound } from '../../src/replication/sync-round.js';
import { MemoryReplica } from '../support/memory-replica.js';
import { serveOnLoopback } from '../support/sync-hub.js';

/**
 * A hostile (or broken) hub on loopback, answering pulls with whatever the
 * test scripts: garbage, tampered ciphertext, replays, another space's rows,
 * rows under another key. The device is a replica holding data of its own
 * and one honest batch already applied; every bad answer must end the
 * round with a typed SyncError and apply nothing (no batch reaches the
 * replica, its records are as they were).
 */
const SPACE = 'space-1';
const key = await createSyncKey({ secret: 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS' });
const tags = { keyTag: key.keyTag, spaceTag: await spaceTag(key, SPACE) };

async function row(seq: number, cursor: number, options: { space?: string; sealKey?: typeof key; device?: string; text?: string } = {}): Promise<PulledRow> {
  const device = options.device ?? 'phone';
  const change = { kind: 'fact', id: `f${seq}`, op: 'put' as const, hlc: formatHlc({ wall: 1_700_000_000_000 + seq, counter: 0, device }), device, record: { text: options.text ?? `fact ${seq}` } };
  return { ...(await sealChange(options.sealKey ?? key, { space: options.space ?? SPACE, seq, change })), cursor: String(cursor) };
}
const batch = (rows: PulledRow[], extra: Partial<PullResponse> = {}): PullResponse => ({ protocol: 1, ...tags, rows, next: rows.at(-1)?.cursor ?? '0', more: false, ...extra });

/** What the hub answers next: a body (JSON-encoded unless a string) and a status. */
let answer: { status?: number; body: unknown; contentType?: string } = { body: batch([]) };
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const served = await serveOnLoopback(async (request) => {
    if (new URL(request.url).pathname.endsWith('/push')) return Response.json({ protocol: 1, stored: 0, skipped: 0, through: 0 });
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return new Response(body, { status: answer.status ?? 200, headers: { 'content-type': answer.contentType ?? 'application/json' } });
  });
  url = served.url;
  close = served.close;
});
afterAll(() => close());

let replica: MemoryReplica;
let before: Record<string, unknown>;
beforeEach(async () => {
  replica = new MemoryReplica('laptop');
  replica.put('fact', 'own', { text: 'written on the laptop' });
  await replica.acknowledge(1);
  // One honest batch first: the replica has taken the phone's sequences 1 and 2, up to cursor 2.
  answer = { body: batch([await row(1, 1), await row(2, 2)]) };
  await syncRound({ replica, client: createHubClient({ url, retries: 0 }), key, space: SPACE });
  expect(replica.appliedBatches).toHaveLength(1);
  before = replica.live();
});

async function refusedWith(reason: SyncError['reason'], options: { maxResponseBytes?: number } = {}): Promise<SyncError> {
  const error = await syncRound({ replica, client: createHubClient({ url, retries: 2, sleep: async () => undefined, ...options }), key, space: SPACE }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SyncError);
  expect((error as SyncError).reason).toBe(reason);
  // Nothing applied: no new batch, the records as they were, the pull state not moved.
  expect(replica.appliedBatches).toHaveLength(1);
  expect(replica.live()).toEqual(before);
  expect((await replica.loadPullState())?.cursor).toBe('2');
  return error as SyncError;
}

describe('a hostile hub gets a typed error and changes nothing', () => {
  it('garbage: a body that is not JSON, an HTML page, JSON that is not the protocol', async () => {
    answer = { body: '\u0000\u00ff garbage \u{1F4A9}' };
    expect((await refusedWith('malformed')).message).toMatch(/not JSON/);
    answer = { body: '<html><body>Welcome to nginx</body></html>', contentType: 'text/html' };
    await refusedWith('malformed');
    answer = { body: { protocol: 1, rows: 'all of them', next: 3, more: false } };
    await refusedWith('malformed');
    answer = { body: { ...batch([await row(3, 3)]), rows: [{ ...(await row(3, 3)), seq: -1 }] } };
    await refusedWith('malformed');
  });

  it('one tampered row among good ones', async () => {
    const rows = [await row(3, 3), await row(4, 4), await row(5, 5)];
    const bytes = fromBase64Url(rows[2]!.ciphertext)!;
    bytes[3] = bytes[3]! ^ 0x01;
    rows[2] = { ...rows[2]!, ciphertext: toBase64Url(bytes) };
    answer = { body: batch(rows) };
    expect((await refusedWith('tampered')).details).toMatchObject({ index: 2, seq: 5 });
  });

  it('a row moved to another sequence, or turned into a delete', async () => {
    answer = { body: batch([{ ...(await row(3, 3)), seq: 9 }]) };
    await refusedWith('tampered');
    answer = { body: batch([{ ...(await row(3, 3)), op: 'delete' }]) };
    await refusedWith('tampered');
  });

  it('replayed rows: the honest batch handed out again under new cursors', async () => {
    answer = { body: batch([await row(1, 3), await row(2, 4)]) };
    await refusedWith('replayed');
    // And a batch starting before the cursor asked after.
    answer = { body: batch([await row(3, 1)]) };
    await refusedWith('replayed');
  });

  it('reordered rows', async () => {
    answer = { body: batch([await row(4, 3), await row(3, 4)]) };
    await refusedWith('reordered');
  });

  it("another space's rows, labelled as that space's or as this one's", async () => {
    answer = { body: batch([await row(3, 3, { space: 'space-2' })], { spaceTag: await spaceTag(key, 'space-2') }) };
    await refusedWith('foreign_space');
    answer = { body: batch([await row(3, 3, { space: 'space-2' })]) };
    await refusedWith('tampered');
  });

  it('rows sealed under another key', async () => {
    const other = await createSyncKey({ secret: 'another-32-byte-secret-for-tests!' });
    answer = { body: batch([await row(3, 3, { sealKey: other })], { keyTag: other.keyTag, spaceTag: await spaceTag(other, SPACE) }) };
    await refusedWith('wrong_key');
  });

  it('"more rows follow" with no progress (a loop), and an answer over the size limit', async () => {
    answer = { body: batch([], { next: '2', more: true }) };
    await refusedWith('malformed');
    answer = { body: batch([await row(3, 3, { text: 'x'.repeat(4000) })]) };
    expect((await refusedWith('malformed', { maxResponseBytes: 1024 })).message).toMatch(/over 1024 bytes/);
  });

  it('a push acknowledgement that does not cover the rows sent', async () => {
    replica.put('fact', 'pending', { text: 'not yet on the hub' });
    const error = await syncRound({ replica, client: createHubClient({ url, retries: 0 }), key, space: SPACE }).catch((e: unknown) => e);
    expect((error as SyncError).reason).toBe('malformed');
    // The change is still pending: the replica was not told the hub holds it.
    expect(replica.pending).toBe(1);
  });
});
