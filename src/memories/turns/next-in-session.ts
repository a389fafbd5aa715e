import type { Turn } from '../../schema/turn.js';
import type { EngramDatabase } from '../../store/database.js';

/**
 * For each turn, the next turn of its session: the nearest higher `seq` of
 * the same user and session within `within` places, one bounded range read each
 * in one read transaction. (Dexie's `anyOf` over the exact keys, one request
 * for all, was far slower on fake-indexeddb: a cursor jump per key.)
 */
export function nextInSession(db: EngramDatabase, turns: readonly Turn[], within: number): Promise<(Turn | undefined)[]> {
  return db.transaction('r', db.turns, () =>
    Promise.all(
      turns.map(async (turn) => {
        const after = await db.turns
          .where('[userId+seq]')
          .between([turn.userId, turn.seq + 1], [turn.userId, turn.seq + within], true, true)
          .toArray();
        return after.find((t) => t.sessionId === turn.sessionId);
      }),
    ),
  );
}
