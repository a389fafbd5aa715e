import type { OPERATIONS } from '../../operations/table.js';
import type { AnyOperation } from '../../operations/operation.js';
import { EPISODE_HANDLERS } from './episodes.js';
import { FACT_HANDLERS } from './facts.js';
import { FORGET_HANDLERS } from './forget.js';
import type { HandlersOf } from './handler.js';
import { IDLE_HANDLERS } from './idle.js';
import { INSPECT_HANDLERS } from './inspect.js';
import { OBSERVE_HANDLERS } from './observe.js';
import { PORTABILITY_HANDLERS } from './portability.js';
import { PROFILE_HANDLERS } from './profile.js';
import { PRUNE_HANDLERS } from './prune.js';
import { RECALL_HANDLERS } from './recall.js';
import { SYNC_HANDLERS } from './sync.js';
import { TASK_HANDLERS } from './tasks.js';
import { TURN_HANDLERS } from './turns.js';

/**
 * What every public operation does, keyed by its method: exactly one
 * handler per operation of operations/table.ts (the `satisfies` fails to
 * compile on a missing or unknown one).
 */
export const HANDLERS = {
  ...EPISODE_HANDLERS,
  ...FACT_HANDLERS,
  ...TURN_HANDLERS,
  ...TASK_HANDLERS,
  ...PROFILE_HANDLERS,
  ...OBSERVE_HANDLERS,
  ...RECALL_HANDLERS,
  ...PRUNE_HANDLERS,
  ...FORGET_HANDLERS,
  ...PORTABILITY_HANDLERS,
  ...INSPECT_HANDLERS,
  ...IDLE_HANDLERS,
  ...SYNC_HANDLERS,
} satisfies HandlersOf<typeof OPERATIONS>;

/** What an operation's handler resolves to: what the facade's method returns. */
export type ResultOf<O extends AnyOperation> = O['method'] extends keyof typeof HANDLERS ? Awaited<ReturnType<(typeof HANDLERS)[O['method']]>> : never;
