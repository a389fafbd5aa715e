/**
 * engram: on-device long-term memory for AI agents and chat apps.
 *
 *   const memory = await createMemory({ name: 'my-app' });
 *   await memory.episodes.add({ text: 'Chose Postgres for the JSON support' });
 *   const hits = await memory.recall('which database?');
 *   const prompt = memory.formatContext(hits, { timeZone: 'Europe/Lisbon' });
 *
 * Values are exported here; every public type comes from ./public/types.ts.
 */
export type * from './public/types.js';
export { createMemory, Memory } from './facade/memory.js';
export { Task } from './facade/task-handle.js';
export { DEFAULT_USER_ID } from './schema/common.js';
export { formatContext } from './recall/format-context.js';
export { formatReplay } from './recall/format-replay.js';
export { englishTimeParser } from './time/english-time-parser.js';
export { loadTransformersEmbedder } from './embed/load-embedder.js';
export { DEFAULT_EMBEDDING_MODEL } from './embed/default-model.js';
export { openAICompatible } from './llm/openai-compatible.js';
export { httpProxy } from './llm/http-proxy.js';
export { PROMPT_VERSION } from './extract/prompt-version.js';
export { LIMITS as TASK_LIMITS } from './tasks/limits.js';
export {
  EngramError,
  ValidationError,
  LimitError,
  NotFoundError,
  ProviderError,
  ClosedError,
  EmbedderError,
  StorageError,
  QuotaError,
  ImportError,
  StoreLockedError,
  CorruptionError,
  WorkerStartError,
  AbortError,
  ContextError,
  SyncError,
} from './errors.js';
