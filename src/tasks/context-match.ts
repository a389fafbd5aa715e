import type { TaskContext } from '../schema/task.js';

/**
 * How well two task contexts match, in [0, 1]: same domain 0.4, same
 * language 0.3, same framework 0.2, 0.1 per shared tag (tags capped at 0.4);
 * the sum is clamped to 1.
 */
export function contextMatchScore(a: Partial<TaskContext>, b: Partial<TaskContext>): number {
  let score = 0;
  if (a.domain && a.domain === b.domain) score += 0.4;
  if (a.language && a.language === b.language) score += 0.3;
  if (a.framework && a.framework === b.framework) score += 0.2;
  const tags = new Set(a.tags ?? []);
  const shared = (b.tags ?? []).filter((t) => tags.has(t)).length;
  score += Math.min(0.1 * shared, 0.4);
  return Math.min(score, 1);
}

/**
 * `tasks.relevant` ranks completed tasks by
 *   0.5 · description relevance (dense + keyword, as in recall)
 * + 0.3 · context match (above)
 * + 0.2 · reward (total clamped to [0, 1])
 * Description matters most; context breaks ties between similar tasks, and a
 * well-rewarded past task is the better example to follow.
 */
export const TASK_RETRIEVAL_WEIGHTS = { description: 0.5, context: 0.3, reward: 0.2 } as const;
