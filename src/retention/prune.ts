import type { EngineContext } from '../engine-context.js';
import { deleteEpisodes } from '../memories/episodes/delete-episodes.js';
import { EPISODES, TURNS } from '../memories/registry.js';
import { selectTurnEvictions, type TurnPolicy } from '../memories/turns/turn-policy.js';
import { selectEvictions, usersOf } from './eviction.js';

/**
 * Applies TTL then the count cap now, to episodes (the lifecycle options) and
 * to turns (the `turns` options), for one user or all (one commit per user);
 * returns the evicted ids.
 */
export async function prune(ctx: EngineContext, turnPolicy: TurnPolicy, options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
  const { db } = ctx;
  const now = ctx.now();
  const users = options.userId !== undefined ? [options.userId] : [...new Set([...(await usersOf(db, EPISODES)), ...(await usersOf(db, TURNS))])];
  const evicted: string[] = [];
  for (const userId of users) {
    const ids = await ctx.commit('prune', [EPISODES, TURNS, 'events'], async (scope) => {
      const { ttl, cap } = await selectEvictions(db, EPISODES, userId, { ttlDays: ctx.lifecycle.ttlDays, maxCount: ctx.lifecycle.maxEpisodes, now });
      await deleteEpisodes(db, scope, [...ttl, ...cap]);
      const turns = await selectTurnEvictions(db, userId, turnPolicy, now);
      await scope.remove(TURNS, turns);
      for (const [reason, list] of [['ttl', ttl], ['cap', cap]] as const) {
        if (list.length) await scope.audit({ type: 'eviction', userId, evicted: list, reason }, now);
      }
      return [...ttl, ...cap, ...turns];
    });
    evicted.push(...ids);
  }
  return { evicted };
}
