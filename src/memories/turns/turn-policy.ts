import Dexie from 'dexie';
import type { TurnOptions } from '../../schema/turn-options.js';
import type { EngramDatabase } from '../../store/database.js';

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
 * than `ttlDays`, then the oldest unpinned ones beyond `maxPerUser`. Pinned
 * turns are exempt and do not count towards the cap.
 */
export async function selectTurnEvictions(db: EngramDatabase, userId: string, policy: TurnPolicy, now: number): Promise<string[]> {
  const byAge = () => db.turns.where('[userId+createdAt]').between([userId, Dexie.minKey], [userId, Dexie.maxKey], true, true);
  const gone = new Set<string>();
  if (policy.ttlDays > 0) {
    const cutoff = now - policy.ttlDays * 86_400_000;
    const expired = await db.turns
      .where('[userId+createdAt]')
      .between([userId, Dexie.minKey], [userId, cutoff], true, false)
      .filter((t) => !t.pinned)
      .primaryKeys();
    expired.forEach((id) => gone.add(id));
  }
  // Fast path: the total (pinned included) within the cap.
  if ((await byAge().count()) - gone.size <= policy.maxPerUser) return [...gone];
  const unpinned = (await byAge().toArray()).filter((t) => !t.pinned && !gone.has(t.id)).map((t) => t.id);
  for (const id of unpinned.slice(0, Math.max(0, unpinned.length - policy.maxPerUser))) gone.add(id);
  return [...gone];
}
