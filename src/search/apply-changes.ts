import type { TaskRecord } from '../schema/task.js';
import { taskDoc, type IndexDoc } from './index-doc.js';
import type { MemoryIndex } from './memory-index.js';

/**
 * Mirrors committed rows into the in-memory indexes. Called only for rows
 * whose transaction has committed (this engine's, via index-sync/announce.ts, or
 * another tab's, via the change signal), so an index never shows a memory
 * IndexedDB does not have.
 */

/** A memory as written, in the form the index keeps (memories/registry.ts: `searchFormOf`); `doc` null when it must not be searchable. */
export interface WrittenMemory {
  id: string;
  doc: IndexDoc | null;
  text: string;
  vector?: Float32Array;
}

/** Memories written: a new vector or text re-indexes the memory; otherwise only its ranking and filter fields change. */
export function applyWritten(index: MemoryIndex, written: readonly WrittenMemory[]): void {
  for (const { id, doc, text, vector } of written) {
    if (!doc) {
      index.remove(id);
      continue;
    }
    const current = index.doc(id);
    if (!vector && current && current.userId === doc.userId && index.holdsText(id, text)) {
      index.updateDoc(doc);
      continue;
    }
    const v = vector ?? index.vector(id);
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
