import type { Fact } from '../../schema/fact.js';
import type { EngramDatabase } from '../../store/database.js';

/**
 * The stored fact with this id, or undefined: for the merge of extracted
 * facts, whose neighbours come from the index and may have been deleted
 * since. Only the facts module names its table.
 */
export function findFact(db: EngramDatabase, id: string): Promise<Fact | undefined> {
  return db.facts.get(id);
}
