import type { EngineContext } from '../engine-context.js';
import { clearCaptureState } from '../extract/capture.js';
import { memoryKinds, TASK_RECORDS } from '../memories/registry.js';

/**
 * Deletes everything stored for one user, in one commit: every memory kind's
 * records, their vectors, tasks, steps, patterns, profile, queued jobs and
 * capture state. Returns how many memories of each kind went, by table.
 */
export async function forgetUser(ctx: EngineContext, userId: string): Promise<{ episodes: number; facts: number; turns: number }> {
  const { db } = ctx;
  const kinds = memoryKinds();
  const removed = await ctx.commit('forget a user', [...kinds, TASK_RECORDS, 'profiles', 'jobs', 'meta', 'steps', 'patterns'], async () => {
    const tasks = await db.tasks.where('userId').equals(userId).primaryKeys();
    await db.steps.where('taskId').anyOf(tasks).delete();
    await db.tasks.bulkDelete(tasks);
    await db.patterns.where('userId').equals(userId).delete();
    const counts: Record<string, number> = {};
    for (const kind of kinds) {
      const table = db.table(kind.table);
      const ids = await table.where('userId').equals(userId).primaryKeys();
      await table.bulkDelete(ids);
      counts[kind.table] = ids.length;
    }
    // Every vector of the user at once (memories' and tasks'): by the blocks' own `userId` index.
    await db.vectorBlocks.where('userId').equals(userId).delete();
    await db.profiles.delete(userId);
    await db.jobs.where('userId').equals(userId).delete();
    await clearCaptureState(db, userId);
    return counts;
  });
  return removed as { episodes: number; facts: number; turns: number };
}
