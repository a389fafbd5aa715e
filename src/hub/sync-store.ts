import { SyncError } from '../errors.js';
import { toBase64Url, fromBase64Url } from '../replication/base64url.js';
import { DEFAULT_TOMBSTONE_TTL_MS } from '../replication/merge-rules.js';
import type { PulledRow, PushRequest } from '../replication/protocol.js';
import { migrateHubSchema } from './hub-schema.js';
import { pgDatabase, pgliteDatabase, type PGliteLike, type PgPoolLike, type SqlDatabase, type SqlQueryable } from './sql-database.js';

/**
 * Where a hub keeps a space's sealed rows: Postgres (through `pg`, or
 * PGlite embedded), behind the few operations the sync handler needs. The
 * `space` argument always comes from the app's `authorize`, never from the
 * client.
 */
export interface SyncStore {
  /** Stores a device's rows, once per (space, device, seq): rows at or below the device's last stored sequence are skipped. */
  push(space: string, request: PushRequest, now: number): Promise<PushResult>;
  /** The rows after `after`, in cursor order, the pulling device's own left out; records that the device has passed `after`. */
  pull(space: string, request: PullRequest, now: number): Promise<PullResult>;
  /** Drops the tombstones every device has passed, and those older than the TTL (retiring the devices that had not passed them). */
  compact(space: string, options: { now: number; tombstoneTtlMs?: number }): Promise<CompactResult>;
}

/** What a push stored: the hub's answer to one device's batch of sealed rows. */
export interface PushResult {
  stored: number;
  skipped: number;
  /** The device's highest sequence the hub now holds. */
  through: number;
  /** Rows (earlier versions of the pushed records, or pushed rows already outdated) removed because a later write of their record is stored. */
  superseded: number;
}

/** One device's pull: the rows after its cursor, up to a count and a size. */
export interface PullRequest {
  device: string;
  after: string;
  limit: number;
  /** Stop adding rows once the batch's sealed bytes pass this (at least one row is always returned). */
  maxBytes: number;
}

/** One batch of a pull: the space's key and space tags, the rows, the cursor to resume from and whether more follow. */
export interface PullResult {
  keyTag: string | null;
  spaceTag: string | null;
  rows: PulledRow[];
  next: string;
  more: boolean;
}

/** What a compaction removed. */
export interface CompactResult {
  /** Tombstones every known device had pulled past. */
  passed: number;
  /** Tombstones older than the TTL. */
  expired: number;
  /** Devices retired because an expired tombstone had not reached them. */
  retiredDevices: number;
}

/** `pg`'s Pool as the hub's store: `postgresSyncStore(new pg.Pool({ connectionString }))`. */
export function postgresSyncStore(pool: PgPoolLike): SyncStore {
  return sqlSyncStore(pgDatabase(pool));
}

/** PGlite as the hub's store: `pgliteSyncStore(await PGlite.create('./hub'))`. */
export function pgliteSyncStore(db: PGliteLike): SyncStore {
  return sqlSyncStore(pgliteDatabase(db));
}

interface SpaceRow {
  last_cursor: string;
  key_tag: string | null;
  space_tag: string | null;
  horizon: string;
}
interface DeviceRow {
  max_seq: string;
  pulled: string;
  retired: boolean;
}
interface ChangeRow {
  cursor: string;
  device: string;
  seq: string;
  op: 'put' | 'delete';
  hlc: string;
  key_hash: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

const expired = (device: string) =>
  new SyncError(`Device "${device}" was away longer than this hub keeps deletions, so it may hold records deleted meanwhile: it must rejoin the space with a new device id and rebuild its replica from the hub.`, {
    reason: 'expired',
    device,
  });

/**
 * The hub's store over any `SqlDatabase`. Tables are created on first use
 * (hub-schema.ts). Every push runs in one transaction holding its space's
 * row lock, which gives three guarantees:
 * - cursors are handed out in commit order, so a pull that read up to the
 *   space's last cursor never misses a row committed after it;
 * - a device's sequence numbers are checked and stored atomically, so a
 *   retry of a push whose answer was lost (the hub killed after COMMIT)
 *   stores nothing twice, and a push cut off before COMMIT stored nothing;
 * - superseded rows are removed in the same transaction: at most one row per
 *   record hash remains, the last writer's by clock.
 */
export function sqlSyncStore(db: SqlDatabase): SyncStore {
  let migrated: Promise<void> | undefined;
  const ready = () => {
    migrated ??= migrateHubSchema(db).catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  /** The space's row, created if new, locked until the transaction ends. */
  const lockSpace = async (tx: SqlQueryable, space: string): Promise<SpaceRow> => {
    await tx.query('INSERT INTO engram_sync_spaces (space) VALUES ($1) ON CONFLICT (space) DO NOTHING', [space]);
    const { rows } = await tx.query<SpaceRow>('SELECT last_cursor::text AS last_cursor, key_tag, space_tag, horizon::text AS horizon FROM engram_sync_spaces WHERE space = $1 FOR UPDATE', [space]);
    return rows[0]!;
  };

  /**
   * The device's row, registered if new. A new device starts as having
   * passed everything already in the space: it holds none of those records
   * yet, so no tombstone so far needs to wait for it.
   */
  const touchDevice = async (tx: SqlQueryable, space: string, device: string, lastCursor: string, now: number, pulledAfter?: string): Promise<DeviceRow> => {
    const { rows } = await tx.query<DeviceRow>(
      `INSERT INTO engram_sync_devices AS d (space, device, pulled, seen_at) VALUES ($1, $2, $3::bigint, $4)
       ON CONFLICT (space, device) DO UPDATE SET seen_at = $4,
         pulled = CASE WHEN $5::bigint IS NULL THEN d.pulled ELSE GREATEST(d.pulled, LEAST($5::bigint, $3::bigint)) END
       RETURNING max_seq::text AS max_seq, pulled::text AS pulled, retired`,
      [space, device, lastCursor, now, pulledAfter ?? null],
    );
    return rows[0]!;
  };

  return {
    async push(space, request, now) {
      await ready();
      return db.transaction(async (tx) => {
        const row = await lockSpace(tx, space);
        if (row.key_tag === null || row.space_tag === null) {
          await tx.query('UPDATE engram_sync_spaces SET key_tag = $2, space_tag = $3 WHERE space = $1', [space, request.keyTag, request.spaceTag]);
        } else if (row.key_tag !== request.keyTag) {
          throw new SyncError("This device seals rows under another key than the space's: give it the key the space's other devices use. Nothing was stored.", { reason: 'wrong_key', device: request.device });
        } else if (row.space_tag !== request.spaceTag) {
          throw new SyncError("This device names its space differently from the space's other devices (its space tag differs): use the same space name on every device. Nothing was stored.", {
            reason: 'foreign_space',
            device: request.device,
          });
        }
        const device = await touchDevice(tx, space, request.device, row.last_cursor, now);
        if (device.retired) throw expired(request.device);
        const held = Number(device.max_seq);
        const fresh = request.rows.filter((r) => r.seq > held);
        if (fresh.length === 0) return { stored: 0, skipped: request.rows.length, through: held, superseded: 0 };

        const first = BigInt(row.last_cursor) + 1n;
        const params: unknown[] = [space, request.device, now];
        const values = fresh.map((r, i) => {
          const at = params.length;
          params.push((first + BigInt(i)).toString(), r.seq, r.op, r.hlc, r.keyHash, fromBase64Url(r.nonce), fromBase64Url(r.ciphertext));
          return `($1, $${at + 1}::bigint, $2, $${at + 2}::bigint, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}::bytea, $${at + 7}::bytea, $3::bigint)`;
        });
        await tx.query(`INSERT INTO engram_sync_changes (space, cursor, device, seq, op, hlc, key_hash, nonce, ciphertext, stored_at) VALUES ${values.join(', ')}`, params);
        const last = first + BigInt(fresh.length) - 1n;
        const through = fresh.at(-1)!.seq;
        await tx.query('UPDATE engram_sync_spaces SET last_cursor = $2::bigint WHERE space = $1', [space, last.toString()]);
        await tx.query('UPDATE engram_sync_devices SET max_seq = $3::bigint WHERE space = $1 AND device = $2', [space, request.device, through]);
        const { rows: gone } = await tx.query<{ cursor: string }>(
          `DELETE FROM engram_sync_changes c WHERE c.space = $1 AND c.key_hash = ANY($2::text[])
             AND EXISTS (SELECT 1 FROM engram_sync_changes d WHERE d.space = c.space AND d.key_hash = c.key_hash AND d.hlc > c.hlc)
           RETURNING c.cursor::text AS cursor`,
          [space, [...new Set(fresh.map((r) => r.keyHash))]],
        );
        return { stored: fresh.length, skipped: request.rows.length - fresh.length, through, superseded: gone.length };
      });
    },

    async pull(space, request, now) {
      await ready();
      return db.transaction(async (tx) => {
        await tx.query('INSERT INTO engram_sync_spaces (space) VALUES ($1) ON CONFLICT (space) DO NOTHING', [space]);
        const { rows: spaces } = await tx.query<SpaceRow>('SELECT last_cursor::text AS last_cursor, key_tag, space_tag, horizon::text AS horizon FROM engram_sync_spaces WHERE space = $1', [space]);
        const row = spaces[0]!;
        if (BigInt(request.after) > BigInt(row.last_cursor)) {
          throw new SyncError(
            `Device "${request.device}" asks for rows after cursor ${request.after}, but this hub's last is ${row.last_cursor}: the hub lost rows (restored from an older backup, or a different database). The device must rejoin with a new device id and rebuild its replica from the hub.`,
            { reason: 'expired', device: request.device, after: request.after, last: row.last_cursor },
          );
        }
        const device = await touchDevice(tx, space, request.device, row.last_cursor, now, request.after);
        if (device.retired) throw expired(request.device);
        // Up to the last cursor read above: a push committing meanwhile takes later cursors, read next time.
        const { rows } = await tx.query<ChangeRow>(
          // `c.cursor`, qualified: a bare `cursor` in ORDER BY would name the text output column and sort "10" before "2".
          `SELECT c.cursor::text AS cursor, c.device, c.seq::text AS seq, c.op, c.hlc, c.key_hash, c.nonce, c.ciphertext FROM engram_sync_changes c
           WHERE c.space = $1 AND c.cursor > $2::bigint AND c.cursor <= $3::bigint AND c.device <> $4 ORDER BY c.cursor LIMIT $5`,
          [space, request.after, row.last_cursor, request.device, request.limit],
        );
        const out: PulledRow[] = [];
        let bytes = 0;
        for (const r of rows) {
          bytes += r.nonce.length + r.ciphertext.length;
          if (out.length > 0 && bytes > request.maxBytes) break;
          out.push({ cursor: r.cursor, device: r.device, seq: Number(r.seq), op: r.op, hlc: r.hlc, keyHash: r.key_hash, nonce: toBase64Url(r.nonce), ciphertext: toBase64Url(r.ciphertext) });
        }
        const more = out.length < rows.length || rows.length === request.limit;
        return { keyTag: row.key_tag, spaceTag: row.space_tag, rows: out, next: more ? out.at(-1)!.cursor : row.last_cursor, more };
      });
    },

    async compact(space, options) {
      await ready();
      const ttl = options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
      return db.transaction(async (tx) => {
        const row = await lockSpace(tx, space);
        // merge-rules.ts's tombstoneFate, in SQL: 'passed' when at or below every active device's pulled cursor...
        const { rows: passed } = await tx.query(
          `DELETE FROM engram_sync_changes WHERE space = $1 AND op = 'delete'
             AND cursor <= (SELECT COALESCE(MIN(pulled), $2::bigint) FROM engram_sync_devices WHERE space = $1 AND NOT retired)
           RETURNING cursor`,
          [space, row.last_cursor],
        );
        // ... and 'expired' when older than the TTL.
        const { rows: old } = await tx.query<{ cursor: string }>(
          `DELETE FROM engram_sync_changes WHERE space = $1 AND op = 'delete' AND stored_at < $2::bigint RETURNING cursor::text AS cursor`,
          [space, options.now - ttl],
        );
        let retiredDevices = 0;
        if (old.length > 0) {
          const horizon = old.reduce((max, r) => (BigInt(r.cursor) > max ? BigInt(r.cursor) : max), BigInt(row.horizon));
          await tx.query('UPDATE engram_sync_spaces SET horizon = $2::bigint WHERE space = $1', [space, horizon.toString()]);
          const { rows: retired } = await tx.query(
            'UPDATE engram_sync_devices SET retired = true WHERE space = $1 AND NOT retired AND pulled < $2::bigint RETURNING device',
            [space, horizon.toString()],
          );
          retiredDevices = retired.length;
        }
        return { passed: passed.length, expired: old.length, retiredDevices };
      });
    },
  };
}
