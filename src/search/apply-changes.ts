import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import type { TaskRecord } from '../schema/task.js';
import type { Turn } from '../schema/turn.js';
import { indexDocOf, taskDoc } from './index-doc.js';
import { indexedText } from './indexed-text.js';
import type { MemoryIndex } from './memory-index.js';

/**
 * Mirrors committed rows into the in-memory indexes. Called only for rows
 * whose transaction has committed (this engine's, via index-sync/announce.ts, or
 * another tab's, via the change signal), so an index never shows a memory
 * IndexedDB does not have.
 */

/** Memories written: a new vector or text re-indexes the memory; otherwise only its ranking and filter fields change. */
export function applyWritten(index: MemoryIndex, written: { record: Episode | Fact | Turn; vector?: Float32Array }[]): void {
  for (const { record, vector } of written) {
    const doc = indexDocOf(record);
    if (!doc) {
      index.remove(record.id);
      continue;
    }
    const current = index.doc(record.id);
    const text = indexedText(record);
    if (!vector && current && current.userId === doc.userId && index.holdsText(record.id, text)) {
      index.updateDoc(doc);
      continue;
    }
    const v = vector ?? index.vector(record.id);
    if (v) index.upsert({ doc, text, vector: v });
  }
}

export function applyDeleted(index: MemoryIndex, ids: Iterable<string>): void {
  for (const id of ids) index.remove(id);
}

/** A task written or deleted: only completed tasks with a vector are in the task index. */
export function applyTask(taskIndex: MemoryIndex, id: string, task: TaskRecord | undefined, vector: Float32Array | undefined): void {
  const v = vector ?? taskIndex.vector(id);
  if (task?.status === 'completed' && v) taskIndex.upsert({ doc: taskDoc(task), text: task.description, vector: v });
  else taskIndex.remove(id);
}
