import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, SyncError } from '../../src/errors.js';
import { backoffDelay } from '../../src/replication/backoff.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { createHubClient } from '../../src/replication/hub-client.js';
import type { SealedRow } from '../../src/replication/protocol.js';
import { sealChange } from '../../src/replication/seal.js';
import { createSyncKey } from '../../src/replication/sync-key.js';
import { serveOnLoopback } from '../support/sync-hub.js';

/**
 * The device's transport (hub-client.ts) against scripted hubs on loopback:
 * which failures it retries and how long it waits (an injected sleep records
 * the waits: no timing is asserted), aborting, and how it cuts pushes into
 * batches.
 */
type Script = (request: Request, body: string) => Response | Promise<Response>;
let script: Script = () => new Response('unset', { status: 500 });
const seen: { path: string; body: string; auth: string | null }[] = [];
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const served = await serveOnLoopback(async (request) => {
    const body = request.method === 'POST' ? await request.text() : '';
    seen.push({ path: new URL(request.url).pathname, body, auth: request.headers.get('authorization') });
    return script(request, body);
  });
  url = served.url;
  close = served.close;
});
afterAll(() => close());

const key = await createSyncKey({ secret: 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS' });
const rows: SealedRow[] = await Promise.all(
  Array.from({ length: 7 }, (_, i) =>
    sealChange(key, { space: 's', seq: i + 1, change: { kind: 'fact', id: `f${i}`, op: 'put', hlc: formatHlc({ wall: i + 1, counter: 0, device: 'phone' }), device: 'phone', record: { text: 'x'.repeat(i === 3 ? 3000 : 10) } } }),
  ),
);
const push = { device: 'phone', keyTag: key.keyTag, spaceTag: key.keyTag, rows };
/** An honest acknowledgement of a push body. */
const ack = (body: string) => {
  const sent = JSON.parse(body) as { rows: SealedRow[] };
  return Response.json({ protocol: 1, stored: sent.rows.length, skipped: 0, through: sent.rows.at(-1)!.seq });
};
const emptyPull = () => Response.json({ protocol: 1, keyTag: null, spaceTag: null, rows: [], next: '0', more: false });

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('the hub client', () => {
  it('retries 5xx and 429 with growing jittered waits, honouring Retry-After, then succeeds', async () => {
    seen.length = 0;
    const failures = [503, 502, 429];
    script = () => {
      const status = failures.shift();
      if (status === 429) return Response.json({ error: { reason: 'slow_down', message: 'busy' } }, { status, headers: { 'retry-after': '7' } });
      return status ? new Response('down', { status }) : emptyPull();
    };
    const { waits, sleep } = recordingSleep();
    const client = createHubClient({ url, retries: 5, sleep, random: () => 0.5, backoff: { initialMs: 100, maxMs: 60_000 }, headers: () => ({ authorization: `Bearer fresh-${seen.length}` }) });
    const answer = await client.pull({ device: 'phone', after: '0' });
    expect(answer.rows).toEqual([]);
    expect(seen).toHaveLength(4);
    // Half of 100, 200, then Retry-After's 7 s over half of 400.
    expect(waits).toEqual([50, 100, 7000]);
    expect(waits).toEqual([backoffDelay(0, { initialMs: 100, maxMs: 60_000 }, () => 0.5), backoffDelay(1, { initialMs: 100, maxMs: 60_000 }, () => 0.5), 7000]);
    // The headers function is asked again for each attempt (a refreshed token).
    expect(seen.map((s) => s.auth)).toEqual(['Bearer fresh-0', 'Bearer fresh-1', 'Bearer fresh-2', 'Bearer fresh-3']);
  });

  it('does not retry a refusal that will not pass (401), and reports the hub reason', async () => {
    seen.length = 0;
    script = () => Response.json({ error: { reason: 'unauthorized', message: 'no' } }, { status: 401 });
    const { waits, sleep } = recordingSleep();
    const error = await createHubClient({ url, retries: 5, sleep }).pull({ device: 'phone', after: '0' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncError);
    expect((error as SyncError).details).toMatchObject({ reason: 'unauthorized', status: 401, hubReason: 'unauthorized' });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('gives up on an unreachable hub after every retry with reason network', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const { waits, sleep } = recordingSleep();
    const error = await createHubClient({ url: `http://127.0.0.1:${port}/sync`, retries: 3, sleep, random: () => 1 - 1e-9, backoff: { initialMs: 10, maxMs: 25 } })
      .pull({ device: 'phone', after: '0' })
      .catch((e: unknown) => e);
    expect((error as SyncError).reason).toBe('network');
    expect((error as SyncError).details.attempts).toBe(4);
    expect((error as SyncError).message).toMatch(/Gave up after 4 attempts/);
    // Random just under 1: just under the ceilings 10, 20, then 40 capped at maxMs (25).
    expect(waits).toEqual([9, 19, 24]);
  });

  it('an abort during a backoff wait ends the call with an AbortError and no further request', async () => {
    seen.length = 0;
    script = () => new Response('down', { status: 503 });
    const controller = new AbortController();
    const client = createHubClient({
      url,
      retries: 5,
      sleep: async (_ms, signal) => {
        controller.abort();
        if (signal?.aborted) throw new AbortError('sync');
      },
    });
    const error = await client.pull({ device: 'phone', after: '0' }, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(seen).toHaveLength(1);
  });

  it('an abort while the hub has not answered ends the call with an AbortError', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const hasArrived = new Promise<void>((resolve) => (arrived = resolve));
    script = async () => {
      arrived();
      await released;
      return emptyPull();
    };
    const controller = new AbortController();
    const pending = createHubClient({ url, retries: 5 }).pull({ device: 'phone', after: '0' }, { signal: controller.signal }).catch((e: unknown) => e);
    await hasArrived;
    controller.abort();
    expect(await pending).toBeInstanceOf(AbortError);
    release();
  });

  it('cuts a push into batches by rows and by bytes, in order, reporting each acknowledged batch', async () => {
    seen.length = 0;
    script = (_request, body) => ack(body);
    const acknowledged: number[] = [];
    const client = createHubClient({ url, retries: 0, maxPushRows: 3, maxPushBytes: 2048 });
    const result = await client.push(push, { onBatch: (through) => void acknowledged.push(through) });
    expect(result).toEqual({ stored: 7, skipped: 0, through: 7 });
    const sent = seen.map((s) => (JSON.parse(s.body) as { rows: SealedRow[] }).rows.map((r) => r.seq));
    // Row 4 is large: over the byte budget with anything else, so it goes alone.
    expect(sent).toEqual([[1, 2, 3], [4], [5, 6, 7]]);
    expect(acknowledged).toEqual([3, 4, 7]);
  });

  it('a push that fails midway has reported the batches the hub holds, and says how far it got', async () => {
    seen.length = 0;
    let calls = 0;
    script = (_request, body) => (++calls === 2 ? Response.json({ error: { reason: 'expired', message: 'rejoin' } }, { status: 410 }) : ack(body));
    const acknowledged: number[] = [];
    const error = await createHubClient({ url, retries: 0, maxPushRows: 3 })
      .push(push, { onBatch: (through) => void acknowledged.push(through) })
      .catch((e: unknown) => e);
    expect((error as SyncError).reason).toBe('expired');
    expect(acknowledged).toEqual([3]);
  });
});
