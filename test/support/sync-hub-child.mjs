/**
 * A sync hub in a child process, to be killed (test/integration/sync-hub-killed.test.ts),
 * run from the built package (dist/) as an app would mount it.
 *   node sync-hub-child.mjs <pg|pglite> <connection string | data folder> <port> [pause]
 * Prints "listening <port>". With a pause, the first push stops at that point and prints
 * "paused", then waits to be killed:
 *   before-commit  inside the push's transaction, before its last statement (nothing committed)
 *   after-commit   after COMMIT, before the answer is sent (everything committed, the device never hears)
 * The pause hooks wrap the database client, not engram: the hub's own code runs unchanged.
 */
import { createServer } from 'node:http';
import { createSyncHandler, pgliteSyncStore, postgresSyncStore, toNodeHandler } from 'engram/server';

const [backend, target, port, pause] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
const forever = () => new Promise(() => {});

let pushStatement = false;
/** Before each statement inside a transaction. */
async function before(text) {
  if (!text.startsWith('UPDATE engram_sync_devices SET max_seq')) return;
  pushStatement = true;
  if (pause === 'before-commit') {
    say('paused');
    await forever();
  }
}
/** After a transaction committed. */
async function committed() {
  if (pause === 'after-commit' && pushStatement) {
    say('paused');
    await forever();
  }
  pushStatement = false;
}

let store;
if (backend === 'pg') {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: target, max: 4 });
  store = postgresSyncStore({
    query: (text, params) => pool.query(text, params),
    async connect() {
      const client = await pool.connect();
      return {
        async query(text, params) {
          await before(text);
          const result = await client.query(text, params);
          if (text === 'COMMIT') await committed();
          return result;
        },
        release: (destroy) => client.release(destroy),
      };
    },
  });
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(target);
  store = pgliteSyncStore({
    query: (text, params) => db.query(text, params),
    async transaction(work) {
      const result = await db.transaction((tx) => work({ query: async (text, params) => (await before(text), tx.query(text, params)) }));
      await committed();
      return result;
    },
  });
}

const server = createServer({ keepAliveTimeout: 120_000 }, toNodeHandler(createSyncHandler({ store, authorize: (request) => (request.headers.get('authorization') === 'Bearer child-token' ? 'space-killed' : null) })));
server.listen(Number(port), '127.0.0.1', () => say(`listening ${server.address().port}`));
