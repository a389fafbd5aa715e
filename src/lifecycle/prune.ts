import type { EngineContext } from '../engine-context.js';
import { deleteEpisodesInTx, selectEvictions } from './eviction.js';

/** Applies TTL then the count cap now, for one user or all (one commit per user); returns the evicted ids. */
export async function prune(ctx: EngineContext, options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
  const { db } = ctx;
  const now = ctx.now();
  const users = options.userId !== undefined ? [options.userId] : ((await db.episodes.orderBy('userId').uniqueKeys()) as string[]);
  const evicted: string[] = [];
  for (const userId of users) {
    const ids = await ctx.commit('prune', ['episodes', 'vectorBlocks', 'events'], async (scope) => {
      const { ttl, cap } = await selectEvictions(db, userId, { ttlDays: ctx.lifecycle.ttlDays, maxEpisodes: ctx.lifecycle.maxEpisodes, now });
      await deleteEpisodesInTx(db, [...ttl, ...cap]);
      for (const [reason, list] of [['ttl', ttl], ['cap', cap]] as const) {
        if (!list.length) continue;
        await db.events.add({ type: 'eviction', userId, at: now, data: { evicted: list, reason } });
        scope.emit({ type: 'eviction', userId, evicted: list, reason });
      }
      return [...ttl, ...cap];
    });
    evicted.push(...ids);
  }
  return { evicted };
}
