import type { CommitScope } from '../../store/commit.js';
import type { EngramDatabase } from '../../store/database.js';
import { EPISODES } from '../registry.js';

/**
 * Deletes episodes with their vectors and splices them out of chains: their
 * children are re-pointed to their parent, so an arc never dangles. Inside
 * the caller's commit, which declares EPISODES.
 */
export async function deleteEpisodes(db: EngramDatabase, scope: CommitScope, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const doomed = new Set(ids);
  const records = await db.episodes.bulkGet([...ids]);
  for (const record of records) {
    if (!record) continue;
    let parent = record.parentId;
    // Skip parents that are being deleted in the same batch.
    const seen = new Set<string>();
    while (parent && doomed.has(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = records.find((r) => r?.id === parent)?.parentId ?? null;
    }
    await db.episodes.where('parentId').equals(record.id).modify((child) => {
      if (!doomed.has(child.id)) child.parentId = parent && !doomed.has(parent) ? parent : null;
    });
  }
  await scope.remove(EPISODES, ids);
}
