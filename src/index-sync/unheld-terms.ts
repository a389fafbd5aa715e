import type { EngramDatabase } from '../store/database.js';
import { memoryKinds, type StoredMemory } from '../memories/registry.js';
import type { MemoryIndex } from '../search/memory-index.js';
import { docTermsAt, readTermLists, termListsOfTokens, type DocTerms } from '../search/term-lists.js';
import { tokenize } from '../text/tokenize.js';
import type { SnapshotHeader, SnapshotRow } from './index-snapshot.js';
import type { SnapshotPage, TermSource } from './snapshot-page.js';

/**
 * Where a save finds the index terms of memories whose text the index does
 * not keep (loaded from a page: search/doc-table.ts). First the page as it
 * is stored: a memory whose text did not change since (the same
 * fingerprint) has the same terms, so a page dirtied by access times or
 * metadata is saved again from one row, not 2,048 records (reading the
 * records made a save at close() of a large store whose every page a
 * session of recalls had touched outlast close()'s deadline). The
 * rest (a text changed, the page was of another layout) are read from
 * their records in one read transaction, and left out if their text is not
 * the one the index holds (a write not applied yet: the page is then not
 * saved this time).
 */
export function unheldTerms(db: EngramDatabase, index: MemoryIndex): TermSource {
  return async (ids, page) => {
    const found = new Map<string, DocTerms>();
    const stored = await storedPage(db, page);
    const lists = stored && stored.fingerprints instanceof Float64Array && stored.fingerprints.length === stored.docs?.ids?.length ? readTermLists(stored.terms, stored.docs.ids.length) : undefined;
    if (stored && lists) {
      const at = new Map(stored.docs.ids.map((id, i) => [id, i]));
      for (const id of ids) {
        const i = at.get(id);
        if (i !== undefined && stored.fingerprints[i] === index.fingerprintOf(id)) found.set(id, docTermsAt(lists, i));
      }
    }
    const rest = ids.filter((id) => !found.has(id));
    if (rest.length === 0) return found;
    for (const [id, text] of await recordTexts(db, index, rest)) {
      if (!index.holdsText(id, text)) continue;
      const lists = readTermLists(termListsOfTokens([tokenize(text)]), 1)!;
      found.set(id, docTermsAt(lists, 0));
    }
    return found;
  };
}

/** The stored row of page `page` (as the current header names it), if any. */
async function storedPage(db: EngramDatabase, page: number): Promise<SnapshotPage | undefined> {
  return db.transaction('r', db.snapshot, async () => {
    const header = (await db.snapshot.get('header')) as SnapshotHeader | undefined;
    const key = Array.isArray(header?.pages) ? header.pages.find((p) => p?.page === page)?.key : undefined;
    const row = typeof key === 'string' ? ((await db.snapshot.get(key)) as SnapshotRow | undefined) : undefined;
    return row && 'docs' in row ? row : undefined;
  });
}

/** The texts of `ids`' records (each id from the tables of the kinds searched as its document's kind), one read transaction; a gone record is left out. */
async function recordTexts(db: EngramDatabase, index: MemoryIndex, ids: readonly string[]): Promise<Map<string, string>> {
  const kinds = memoryKinds();
  const wanted = kinds.map((kind) => ids.filter((id) => index.kindOf(id) === kind.searchAs));
  const records = await db.transaction('r', kinds.map((kind) => db.tableOf(kind.table)), () =>
    Promise.all(kinds.map((kind, k) => (wanted[k]!.length > 0 ? db.tableOf<StoredMemory>(kind.table).bulkGet(wanted[k]!) : []))),
  );
  const texts = new Map<string, string>();
  records.forEach((list, k) => {
    for (const record of list) if (record) texts.set(record.id, kinds[k]!.indexedText(record));
  });
  return texts;
}
