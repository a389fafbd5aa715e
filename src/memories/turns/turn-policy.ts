import { selectEvictions } from '../../retention/eviction.js';
import type { TurnOptions } from '../../schema/turn-options.js';
import type { EngramDatabase } from '../../store/database.js';
import { TURNS } from '../registry.js';

export interface TurnPolicy {
  keep: 'without-llm' | 'always' | 'never';
  maxPerUser: number;
  ttlDays: number;
}

export function resolveTurnPolicy(options: TurnOptions = {}): TurnPolicy {
  return { keep: options.keep ?? 'without-llm', maxPerUser: options.maxPerUser ?? 10_000, ttlDays: options.ttlDays ?? 0 };
}

/**
 * The turns of `userId` that retention removes, inside the caller's write
 * transaction (every turn write, and `memory.prune()`): unpinned turns older
 * than `ttlDays`, then the oldest unpinned ones beyond `maxPerUser`
 * (retention/eviction.ts). Pinned turns are exempt and do not count towards the cap.
 */
export async function selectTurnEvictions(db: EngramDatabase, userId: string, policy: TurnPolicy, now: number): Promise<string[]> {
  const { ttl, cap } = await selectEvictions(db, TURNS, userId, { ttlDays: policy.ttlDays, maxCount: policy.maxPerUser, now });
  return [...ttl, ...cap];
}
