import type { Transaction } from 'dexie';
import type { RowChange } from '../store/change-feed.js';
import { createHybridClock } from './hlc.js';
import { REPLICA_META_KEY, replicaStateSchema, type SyncOutboxRow, type SyncVersion } from './replica-records.js';
import { recordKey, syncedKindOfTable } from './synced-kinds.js';
import { safeParse } from '../schema/safe-parse.js';

/** The key a commit's `remote` set names a row by: its table and primary key, as the change feed logs them. */
export function remoteRowKey(table: string, key: string): string {
  return `${table}\u0000${key}`;
}

/**
 * Sync's half of the commit path (store/commit.ts runs it inside every
 * non-quiet commit's transaction, after the body): each row of a synced kind
 * the transaction wrote or deleted, unless the commit applied it from
 * another replica (`remote`), becomes this device's next change: a clock
 * from the device's hybrid clock, the next sequence number, its version
 * row, and its outbox row (replacing any earlier one of the same record).
 *
 * Before sync was first started on the store there is no replica state and
 * nothing is captured: starting sync puts every stored record in the
 * outbox at once (engine-replica.ts `enable`).
 *
 * Quiet commits (recall's access times) are not captured: access times are
 * this device's own, and syncing every recall would turn reads into writes.
 */
export async function captureLocalWrites(tx: Transaction, written: readonly RowChange[], remote: ReadonlySet<string> | undefined, now: () => number): Promise<void> {
  const rows = written.filter((row) => syncedKindOfTable(row.table) && !remote?.has(remoteRowKey(row.table, row.key)));
  if (rows.length === 0) return;
  const meta = tx.table('meta');
  const stored = await meta.get(REPLICA_META_KEY);
  if (!stored) return;
  const parsed = safeParse(replicaStateSchema, stored.value);
  if (!parsed.success) throw new Error(`The store's sync state is damaged (${parsed.error.issues[0]?.message}).`);
  const state = parsed.data;
  const clock = createHybridClock({ device: state.device, last: state.clock, now, maxDriftMs: Number.MAX_SAFE_INTEGER });
  const keys = rows.map((row) => recordKey(syncedKindOfTable(row.table)!.kind, row.key));
  const held = (await tx.table('syncVersions').bulkGet(keys)) as (SyncVersion | undefined)[];
  const versions: SyncVersion[] = [];
  const outbox: SyncOutboxRow[] = [];
  rows.forEach((row, i) => {
    const kind = syncedKindOfTable(row.table)!.kind;
    const hlc = clock.tick();
    const seq = ++state.seq;
    const deleted = row.value === undefined;
    const version: SyncVersion = { key: keys[i]!, kind, id: row.key, hlc, deleted };
    if (kind === 'profile' && !deleted) {
      // Per-field clocks: each field this write changed gets this write's clock; the others keep theirs.
      const fields = (row.value as { fields: Record<string, unknown> }).fields;
      const before = held[i]?.deleted ? {} : (held[i]?.fields ?? {});
      const clocks = { ...(held[i]?.deleted ? {} : held[i]?.clocks) };
      for (const field of new Set([...Object.keys(fields), ...Object.keys(before)])) {
        if (JSON.stringify(fields[field]) !== JSON.stringify(before[field])) clocks[field] = hlc;
      }
      version.clocks = clocks;
      version.fields = fields;
    }
    versions.push(version);
    outbox.push({ key: keys[i]!, kind, id: row.key, seq, hlc, op: deleted ? 'delete' : 'put' });
  });
  await tx.table('syncVersions').bulkPut(versions);
  await tx.table('syncOutbox').bulkPut(outbox);
  await meta.put({ key: REPLICA_META_KEY, value: { ...state, clock: clock.last } });
}
