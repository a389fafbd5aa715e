import type { EngramDatabase } from '../../store/database.js';
import type { MemoryRecord } from '../../schema/memory-record.js';
import type { IndexLogRow } from '../../schema/records.js';
import { vectorAt } from '../../store/vector-blocks.js';
import { indexDocOf } from '../index-doc.js';
import { indexedText } from '../indexed-text.js';
import type { IndexDoc } from '../index-doc.js';

/**
 * The memories written since the store was at `from`, and the vector blocks, when the write log
 * (`indexLog`, store/write-mark.ts) holds every transaction from `from` to
 * `to`: each transaction's rows name the mark before it and after it, so the
 * log is followed from mark to mark. Null when it does not get there (a
 * write that was not logged: an engine that keeps no snapshot, an older
 * engine, a log emptied by a save of another snapshot) or when a row cannot
 * tell its memories: then the caller reads every record instead.
 */
export function writtenSince(rows: readonly IndexLogRow[], from: string, to: string): { ids: Set<string>; blocks: Set<string> } | null {
  const after = new Map<string, IndexLogRow[]>();
  for (const row of rows) {
    const list = after.get(row.previous);
    if (!list) after.set(row.previous, [row]);
    // One transaction's rows share both marks; two transactions from one mark would be a fork (never written so).
    else if (list[0]!.mark === row.mark) list.push(row);
    else return null;
  }
  const ids = new Set<string>();
  const blocks = new Set<string>();
  let at = from;
  for (let steps = 0; at !== to; steps++) {
    const step = after.get(at);
    if (!step || steps > rows.length) return null;
    for (const row of step) {
      if (row.ids === null) return null;
      for (const id of row.ids) ids.add(id);
      for (const block of row.blocks ?? []) blocks.add(block);
    }
    at = step[0]!.mark;
  }
  return { ids, blocks };
}

/** A memory written since the snapshot: its document and text now, and its vector when a logged write changed it. */
export interface WrittenMemory {
  id: string;
  /** None when it was deleted or is not searchable (a retired fact). */
  now?: { doc: IndexDoc; text: string; vector?: Float32Array };
}

/**
 * Each memory's current state, read inside the caller's transaction (which
 * must cover the memory tables and `vectorBlocks`): its document and
 * indexed text, and its vector from the vector blocks the log says were
 * written since (`blocks`, read by key). A memory whose vector no logged
 * write changed has the one the snapshot holds: the caller takes it from
 * the loaded index.
 */
export async function writtenMemories(db: EngramDatabase, ids: readonly string[], blocks: readonly string[], dimension: number): Promise<WrittenMemory[]> {
  const [facts, episodes, turns, written] = await Promise.all([
    db.facts.bulkGet([...ids]),
    db.episodes.bulkGet([...ids]),
    db.turns.bulkGet([...ids]),
    db.vectorBlocks.bulkGet([...blocks]),
  ]);
  const vectors = new Map<string, Float32Array>();
  for (const block of written) {
    if (!block || block.kind === 'task' || block.vectors.length !== block.ids.length * dimension) continue;
    block.ids.forEach((id, i) => vectors.set(id, vectorAt(block, i)));
  }
  return ids.map((id, i) => {
    const record: MemoryRecord | undefined = facts[i] ?? episodes[i] ?? turns[i];
    const doc = record ? indexDocOf(record) : null;
    return record && doc ? { id, now: { doc, text: indexedText(record), vector: vectors.get(id) } } : { id };
  });
}
