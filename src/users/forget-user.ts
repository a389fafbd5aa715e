import type { EngineContext } from '../engine-context.js';
import { clearCaptureState } from '../extract/capture.js';

/** Deletes everything stored for one user, in one commit: memories (episodes, facts, turns), vectors, tasks, steps, patterns, profile, queued jobs, capture state. */
export async function forgetUser(ctx: EngineContext, userId: string): Promise<{ episodes: number; facts: number; turns: number }> {
  const { db } = ctx;
  const removed = await ctx.commit('forget a user', ['episodes', 'facts', 'turns', 'vectorBlocks', 'profiles', 'jobs', 'meta', 'tasks', 'steps', 'patterns'], async () => {
    const tasks = await db.tasks.where('userId').equals(userId).primaryKeys();
    await db.steps.where('taskId').anyOf(tasks).delete();
    await db.tasks.bulkDelete(tasks);
    await db.patterns.where('userId').equals(userId).delete();
    const episodes = await db.episodes.where('userId').equals(userId).primaryKeys();
    const facts = await db.facts.where('userId').equals(userId).primaryKeys();
    await db.episodes.bulkDelete(episodes);
    await db.facts.bulkDelete(facts);
    const turns = await db.turns.where('userId').equals(userId).primaryKeys();
    await db.turns.bulkDelete(turns);
    await db.vectorBlocks.where('userId').equals(userId).delete();
    await db.profiles.delete(userId);
    await db.jobs.where('userId').equals(userId).delete();
    await clearCaptureState(db, userId);
    return { episodes: episodes.length, facts: facts.length, turns: turns.length };
  });
  return removed;
}
