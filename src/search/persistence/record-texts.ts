import type { EngramDatabase } from '../../store/database.js';
import { indexedText } from '../indexed-text.js';
import type { MemoryIndex } from '../memory-index.js';
import type { TextSource } from './snapshot-page.js';

/**
 * The texts of `index`'s memories, read from their records in one read
 * transaction (the ids of each kind from its table): what a snapshot save
 * encodes for the memories the index keeps no text of (search/doc-table.ts).
 * An id that is not indexed, or whose record is gone, is left out.
 */
export function recordTexts(db: EngramDatabase, index: MemoryIndex): TextSource {
  return async (ids) => {
    const byKind = { fact: [] as string[], episode: [] as string[], turn: [] as string[] };
    for (const id of ids) {
      const kind = index.kindOf(id);
      if (kind === 'fact' || kind === 'episode' || kind === 'turn') byKind[kind].push(id);
    }
    const records = await db.transaction('r', [db.facts, db.episodes, db.turns], () =>
      Promise.all([
        byKind.fact.length > 0 ? db.facts.bulkGet(byKind.fact) : [],
        byKind.episode.length > 0 ? db.episodes.bulkGet(byKind.episode) : [],
        byKind.turn.length > 0 ? db.turns.bulkGet(byKind.turn) : [],
      ]),
    );
    const texts = new Map<string, string>();
    for (const list of records) for (const record of list) if (record) texts.set(record.id, indexedText(record));
    return texts;
  };
}
