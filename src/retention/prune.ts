import type { EngineContext } from '../engine-context.js';
import { deleteVectors } from '../store/vector-blocks.js';
import { selectTurnEvictions, type TurnPolicy } from '../memories/turns/turn-policy.js';
import { deleteEpisodesInTx, selectEvictions } from './eviction.js';

/**
 * Applies TTL then the count cap now, to episodes (the lifecycle options) and
 * to turns (the `turns` options), for one user or all (one commit per user);
 * returns the evicted ids.
 */
export async function prune(ctx: EngineContext, turnPolicy: TurnPolicy, options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
  const { db } = ctx;
  const now = ctx.now();
  const users =
    options.userId !== undefined
      ? [options.userId]
      : [...new Set([...((await db.episodes.orderBy('userId').uniqueKeys()) as string[]), ...((await db.turns.orderBy('[userId+createdAt]').uniqueKeys()) as unknown as [string, number][]).map(([u]) => u)])];
  const evicted: string[] = [];
  for (const userId of users) {
    const ids = await ctx.commit('prune', ['episodes', 'turns', 'vectorBlocks', 'events'], async (scope) => {
      const { ttl, cap } = await selectEvictions(db, userId, { ttlDays: ctx.lifecycle.ttlDays, maxEpisodes: ctx.lifecycle.maxEpisodes, now });
      await deleteEpisodesInTx(db, [...ttl, ...cap]);
      const turns = await selectTurnEvictions(db, userId, turnPolicy, now);
      await db.turns.bulkDelete(turns);
      await deleteVectors(db, turns);
      for (const [reason, list] of [['ttl', ttl], ['cap', cap]] as const) {
        if (!list.length) continue;
        await db.events.add({ type: 'eviction', userId, at: now, data: { evicted: list, reason } });
        scope.emit({ type: 'eviction', userId, evicted: list, reason });
      }
      return [...ttl, ...cap, ...turns];
    });
    evicted.push(...ids);
  }
  return { evicted };
}
