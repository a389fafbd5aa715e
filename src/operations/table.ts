import { EPISODE_OPERATIONS } from './episodes.js';
import { FACT_OPERATIONS } from './facts.js';
import { forgetAUser } from './forget.js';
import { waitForIdle } from './idle.js';
import { INSPECT_OPERATIONS } from './inspect.js';
import { observeTurn } from './observe.js';
import type { AnyOperation } from './operation.js';
import { PORTABILITY_OPERATIONS } from './portability.js';
import { PROFILE_OPERATIONS } from './profile.js';
import { pruneNow } from './prune.js';
import { recallMemories } from './recall.js';
import { SYNC_OPERATIONS } from './sync.js';
import { TASK_OPERATIONS } from './tasks.js';
import { TURN_OPERATIONS } from './turns.js';

/**
 * Every public operation, once. The facade validates and forwards each
 * (facade/forward.ts), the engine dispatches each to its handler
 * (engine/dispatch.ts, engine/handlers/table.ts), and the worker's API type
 * is derived from this list (`EngineDispatcher`).
 */
export const OPERATIONS = [
  ...EPISODE_OPERATIONS,
  ...FACT_OPERATIONS,
  ...TURN_OPERATIONS,
  ...TASK_OPERATIONS,
  ...PROFILE_OPERATIONS,
  observeTurn,
  recallMemories,
  pruneNow,
  forgetAUser,
  ...PORTABILITY_OPERATIONS,
  ...INSPECT_OPERATIONS,
  waitForIdle,
  ...SYNC_OPERATIONS,
] as const satisfies readonly AnyOperation[];

export type TableOperation = (typeof OPERATIONS)[number];
export type OperationMethod = TableOperation['method'];
