import { StorageError } from '../errors.js';
import type { SqlDatabase } from './sql-database.js';

/**
 * The hub's tables. One table of encrypted change rows for every space
 * (`space` is the first column of every key, so a space's rows sit
 * together and one query never reads another's), beside a row per space and
 * a row per device:
 *
 * - engram_sync_spaces: the space's last cursor (rows get cursors from it,
 *   under the row's lock, so cursors are handed out in commit order and a
 *   pull never skips a row that commits later), the key and space tags its
 *   rows were pushed with, and the horizon (the latest tombstone dropped by
 *   the TTL: a device that had not pulled past it is retired).
 * - engram_sync_devices: each device's highest pushed sequence (a retry at
 *   or below it stores nothing) and how far it has pulled (a tombstone every
 *   device has pulled past can go).
 * - engram_sync_changes: the sealed rows. In the clear: device, sequence,
 *   operation, clock (`COLLATE "C"`: byte order, the order devices compare
 *   clocks in) and the keyed record hash; the nonce and ciphertext as bytea.
 *   At most one row per record hash survives a push: the last writer's.
 */
export const HUB_SCHEMA_VERSION = 1;

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS engram_sync_meta (
    key text PRIMARY KEY,
    value text NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS engram_sync_spaces (
    space text PRIMARY KEY,
    last_cursor bigint NOT NULL DEFAULT 0,
    key_tag text,
    space_tag text,
    horizon bigint NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE IF NOT EXISTS engram_sync_devices (
    space text NOT NULL,
    device text NOT NULL,
    max_seq bigint NOT NULL DEFAULT 0,
    pulled bigint NOT NULL,
    retired boolean NOT NULL DEFAULT false,
    seen_at bigint NOT NULL,
    PRIMARY KEY (space, device)
  )`,
  `CREATE TABLE IF NOT EXISTS engram_sync_changes (
    space text NOT NULL,
    cursor bigint NOT NULL,
    device text NOT NULL,
    seq bigint NOT NULL,
    op text NOT NULL CHECK (op IN ('put', 'delete')),
    hlc text COLLATE "C" NOT NULL,
    key_hash text NOT NULL,
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    stored_at bigint NOT NULL,
    PRIMARY KEY (space, cursor)
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS engram_sync_changes_device_seq ON engram_sync_changes (space, device, seq)`,
  `CREATE INDEX IF NOT EXISTS engram_sync_changes_record ON engram_sync_changes (space, key_hash, hlc)`,
  `CREATE INDEX IF NOT EXISTS engram_sync_changes_tombstones ON engram_sync_changes (space, cursor) WHERE op = 'delete'`,
];

/** An advisory lock id, so two hub processes starting at once do not race to create the same tables. */
const MIGRATION_LOCK = 0x656e6772;

/**
 * Creates the tables if they are missing, in one transaction under an
 * advisory lock. Refuses a database written by a newer hub (its schema
 * version is higher), rather than misreading it.
 */
export async function migrateHubSchema(db: SqlDatabase): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    for (const statement of STATEMENTS) await tx.query(statement);
    const { rows } = await tx.query<{ value: string }>(`SELECT value FROM engram_sync_meta WHERE key = 'schema_version'`);
    const found = rows[0] ? Number(rows[0].value) : undefined;
    if (found !== undefined && found > HUB_SCHEMA_VERSION) {
      throw new StorageError(`The hub's database was written by a newer engram (schema version ${found}; this one knows ${HUB_SCHEMA_VERSION}): upgrade engram on this server.`, { found, known: HUB_SCHEMA_VERSION });
    }
    if (found === undefined) await tx.query(`INSERT INTO engram_sync_meta (key, value) VALUES ('schema_version', $1)`, [String(HUB_SCHEMA_VERSION)]);
  });
}
