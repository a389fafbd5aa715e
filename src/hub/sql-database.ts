/**
 * The little of a Postgres client the sync hub needs: parameterised queries
 * and transactions. Two adapters below wrap the standard clients, `pg`'s
 * Pool (any Postgres server, managed or not) and PGlite (Postgres in
 * WebAssembly, embedded in the process). They are typed by shape, not by
 * importing either library, so `engram/server` loads neither: the app
 * brings the one it uses (both are optional peer dependencies). Another
 * client (postgres.js, a serverless driver) needs only these two methods.
 *
 * Values come back as the client gives them: the hub's SQL casts every
 * bigint to text (pg hands out strings, PGlite numbers that lose precision
 * past 2^53), and reads bytea as any Uint8Array (pg's Buffer is one).
 */
export interface SqlQueryable {
  /** Runs one parameterised statement (`$1`, `$2`, …) and resolves its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface SqlDatabase extends SqlQueryable {
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

/** What the hub uses of one connection checked out of a `pg.Pool`. */
export interface PgPoolClientLike {
  /** `pg`'s `client.query(text, params)`. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Returns the connection to its pool, or destroys it when given `true` or an error. */
  release(destroy?: boolean | Error): void;
}

/** What the hub uses of a `pg.Pool` (the `pg` package). */
export interface PgPoolLike {
  /** `pg`'s `pool.query(text, params)`. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  /** `pg`'s `pool.connect()`: one connection for a transaction. */
  connect(): Promise<PgPoolClientLike>;
}

/** What the hub uses of a `PGlite` instance (`@electric-sql/pglite`). */
export interface PGliteLike {
  /** PGlite's `db.query(text, params)`. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  /** PGlite's `db.transaction(work)`: committed if `work` resolves, rolled back if it throws. */
  transaction<T>(work: (tx: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>): Promise<T>;
}

/**
 * A `pg.Pool` as the hub's database. Each transaction holds one pooled
 * connection from BEGIN to COMMIT; a connection whose ROLLBACK failed is
 * destroyed rather than returned to the pool in an unknown state.
 */
export function pgDatabase(pool: PgPoolLike): SqlDatabase {
  return {
    query: (text, params) => pool.query(text, params) as never,
    async transaction(work) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work({ query: (text, params) => client.query(text, params) as never });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** A PGlite instance as the hub's database (its own `transaction`, which PGlite runs one at a time). */
export function pgliteDatabase(db: PGliteLike): SqlDatabase {
  return {
    query: (text, params) => db.query(text, params) as never,
    transaction: (work) => db.transaction((tx) => work({ query: (text, params) => tx.query(text, params) as never })),
  };
}
