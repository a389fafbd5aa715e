import { describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import { fromBase64Url, toBase64Url } from '../../src/replication/base64url.js';
import type { Change } from '../../src/replication/change.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { openBatch } from '../../src/replication/open-batch.js';
import type { PullResponse, PulledRow } from '../../src/replication/protocol.js';
import { initialPullState, type PullState } from '../../src/replication/pull-state.js';
import { sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag, type SyncKey } from '../../src/replication/sync-key.js';

const SECRET = 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS';
const SPACE = 'space-1';
const key = await createSyncKey({ secret: SECRET });

const change = (device: string, n: number): Change => ({
  kind: 'fact',
  id: `fact-${device}-${n}`,
  op: 'put',
  hlc: formatHlc({ wall: 1_700_000_000_000 + n, counter: 0, device }),
  device,
  record: { text: `fact ${n} from ${device}` },
});

/** Rows as an honest hub hands them out: sealed by their devices, with rising cursors. */
async function rows(spec: { device: string; seq: number; cursor: number }[], options: { key?: SyncKey; space?: string } = {}): Promise<PulledRow[]> {
  return Promise.all(
    spec.map(async ({ device, seq, cursor }) => ({
      ...(await sealChange(options.key ?? key, { space: options.space ?? SPACE, seq, change: change(device, seq) })),
      cursor: String(cursor),
    })),
  );
}

async function response(batch: PulledRow[], overrides: Partial<PullResponse> = {}): Promise<PullResponse> {
  return {
    protocol: 1,
    keyTag: key.keyTag,
    spaceTag: await spaceTag(key, SPACE),
    rows: batch,
    next: batch.at(-1)?.cursor ?? '0',
    more: false,
    ...overrides,
  };
}

async function refusal(state: PullState, res: PullResponse, options: { key?: SyncKey; space?: string } = {}): Promise<SyncError> {
  const error = await openBatch(options.key ?? key, { space: options.space ?? SPACE, device: 'me', state, response: res }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SyncError);
  expect((error as SyncError).message).toContain('Nothing from this batch was applied');
  return error as SyncError;
}

describe('opening a pulled batch', () => {
  it("returns the other devices' changes in order and the state to store with them", async () => {
    const batch = await rows([
      { device: 'phone', seq: 1, cursor: 3 },
      { device: 'me', seq: 4, cursor: 5 },
      { device: 'laptop', seq: 2, cursor: 6 },
      { device: 'phone', seq: 3, cursor: 9 },
    ]);
    const opened = await openBatch(key, { space: SPACE, device: 'me', state: { cursor: '2', seen: { laptop: 1 } }, response: await response(batch, { next: '11' }) });
    expect(opened.changes.map((c) => c.id)).toEqual(['fact-phone-1', 'fact-laptop-2', 'fact-phone-3']);
    expect(opened.state).toEqual({ cursor: '11', seen: { phone: 3, laptop: 2, me: 4 } });
  });

  it('an empty answer moves the cursor on and takes nothing', async () => {
    const opened = await openBatch(key, { space: SPACE, device: 'me', state: initialPullState(), response: await response([], { keyTag: null, spaceTag: null, next: '40' }) });
    expect(opened).toEqual({ changes: [], state: { cursor: '40', seen: {} } });
  });

  it('a batch with one tampered row is refused whole, naming the row (reason tampered)', async () => {
    const batch = await rows([
      { device: 'phone', seq: 1, cursor: 1 },
      { device: 'phone', seq: 2, cursor: 2 },
      { device: 'phone', seq: 3, cursor: 3 },
    ]);
    const bytes = fromBase64Url(batch[1]!.ciphertext)!;
    bytes[0] = bytes[0]! ^ 0x80;
    batch[1] = { ...batch[1]!, ciphertext: toBase64Url(bytes) };
    const error = await refusal(initialPullState(), await response(batch));
    expect(error.reason).toBe('tampered');
    expect(error.details).toMatchObject({ index: 1, device: 'phone', seq: 2, cursor: '2' });
  });

  it.each([
    ['operation', (row: PulledRow) => ({ ...row, op: 'delete' as const })],
    ['clock', (row: PulledRow) => ({ ...row, hlc: formatHlc({ wall: 1_800_000_000_000, counter: 0, device: 'phone' }) })],
    ['sequence (still rising)', (row: PulledRow) => ({ ...row, seq: row.seq + 5 })],
    ['device (a forged sender)', (row: PulledRow) => ({ ...row, device: 'laptop' })],
  ])('a row whose %s the hub changed is refused as tampered', async (_what, alter) => {
    const batch = await rows([{ device: 'phone', seq: 1, cursor: 1 }]);
    const error = await refusal(initialPullState(), await response([alter(batch[0]!)]));
    expect(error.reason).toBe('tampered');
  });

  it('a row at or below the sequence already taken from its device is refused as replayed', async () => {
    const batch = await rows([
      { device: 'phone', seq: 5, cursor: 20 },
      { device: 'phone', seq: 6, cursor: 21 },
    ]);
    const error = await refusal({ cursor: '19', seen: { phone: 5 } }, await response(batch));
    expect(error.reason).toBe('replayed');
    expect(error.details).toMatchObject({ index: 0, device: 'phone', seq: 5 });
  });

  it('a row handed out twice in one batch (a second cursor for the same sequence) is refused as replayed', async () => {
    const [row] = await rows([{ device: 'phone', seq: 1, cursor: 1 }]);
    const error = await refusal(initialPullState(), await response([row!, { ...row!, cursor: '2' }]));
    expect(error.reason).toBe('replayed');
    expect(error.details).toMatchObject({ index: 1 });
  });

  it('a row at or before the cursor asked after is refused as replayed, and so is a next cursor going back', async () => {
    const batch = await rows([{ device: 'phone', seq: 9, cursor: 30 }]);
    expect((await refusal({ cursor: '30', seen: {} }, await response(batch))).reason).toBe('replayed');
    expect((await refusal({ cursor: '50', seen: {} }, await response([], { next: '10' }))).reason).toBe('replayed');
  });

  it("rows whose cursors go back, or whose device's sequence goes back, are refused as reordered", async () => {
    const byCursor = await rows([
      { device: 'phone', seq: 1, cursor: 5 },
      { device: 'laptop', seq: 1, cursor: 4 },
    ]);
    expect((await refusal(initialPullState(), await response(byCursor, { next: '5' }))).reason).toBe('reordered');
    const bySeq = await rows([
      { device: 'phone', seq: 2, cursor: 4 },
      { device: 'phone', seq: 1, cursor: 5 },
    ]);
    const error = await refusal(initialPullState(), await response(bySeq));
    expect(error.reason).toBe('reordered');
    expect(error.details).toMatchObject({ index: 1, seq: 1 });
  });

  it("another space's rows are refused as foreign_space when the hub labels them as they were pushed, and as tampered when it relabels them", async () => {
    const foreign = await rows([{ device: 'phone', seq: 1, cursor: 1 }], { space: 'space-2' });
    const labelled = await response(foreign, { spaceTag: await spaceTag(key, 'space-2') });
    expect((await refusal(initialPullState(), labelled)).reason).toBe('foreign_space');
    expect((await refusal(initialPullState(), await response(foreign))).reason).toBe('tampered');
  });

  it('a device with the wrong key is told so on its first pull (reason wrong_key), before anything is opened', async () => {
    const wrong = await createSyncKey({ secret: SECRET.toUpperCase() });
    const batch = await rows([{ device: 'phone', seq: 1, cursor: 1 }]);
    const error = await refusal(initialPullState(), await response(batch), { key: wrong });
    expect(error.reason).toBe('wrong_key');
    expect(error.message).toMatch(/another key/);
  });

  it('rows without the tags they were pushed with are refused as malformed', async () => {
    const batch = await rows([{ device: 'phone', seq: 1, cursor: 1 }]);
    expect((await refusal(initialPullState(), await response(batch, { keyTag: null }))).reason).toBe('malformed');
  });
});
