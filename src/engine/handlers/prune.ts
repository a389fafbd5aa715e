import { prune } from '../../retention/prune.js';
import type { pruneNow } from '../../operations/prune.js';
import type { HandlersOf } from './handler.js';

/** Applies TTL then the count cap (operations/prune.ts). */
export const PRUNE_HANDLERS = {
  prune: ({ ctx, turns }, [options]) => prune(ctx, turns.policy, options),
} satisfies HandlersOf<readonly [typeof pruneNow]>;
