/**
 * engram/server: helpers for the app's own server. The LLM proxy keeps API
 * keys off the page: the browser uses `httpProxy({ url })`, the server
 * answers with `createProxyHandler({ upstream })`. The sync hub keeps a
 * space's end-to-end encrypted change rows in Postgres (`pg`) or PGlite:
 * `createSyncHandler({ store: postgresSyncStore(pool), authorize })`
 * (docs/sync.md). Neither database client is imported here: the app passes
 * its own instance.
 */
export { createProxyHandler, type ProxyHandlerOptions } from './llm/proxy-handler.js';
export { toNodeHandler } from './llm/node-adapter.js';
export { openAICompatible, type OpenAICompatibleOptions } from './llm/openai-compatible.js';
export type { LLMProvider, LLMRequest, LLMResponse, LLMUsage } from './llm/types.js';
export { createSyncHandler, type SyncHandlerOptions } from './hub/sync-handler.js';
export {
  postgresSyncStore,
  pgliteSyncStore,
  sqlSyncStore,
  type SyncStore,
  type PushResult,
  type PullRequest,
  type PullResult,
  type CompactResult,
} from './hub/sync-store.js';
export type { SqlDatabase, SqlQueryable, PgPoolLike, PgPoolClientLike, PGliteLike } from './hub/sql-database.js';
export { SyncError, type SyncErrorReason } from './errors.js';
