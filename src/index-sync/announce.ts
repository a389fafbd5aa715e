import { memoryKindIn, searchFormOf, TASK_RECORDS, type StoredMemory } from '../memories/registry.js';
import type { VectorBlock } from '../schema/records.js';
import type { TaskRecord } from '../schema/task.js';
import { applyDeleted, applyTask, applyWritten, type WrittenMemory } from '../search/apply-changes.js';
import type { MemoryIndex } from '../search/memory-index.js';
import type { ChangeMessage } from './change-signal.js';
import type { ChangeEvent, ChangeTable } from '../telemetry/events.js';
import type { ChangeListener, RowChange } from '../store/change-feed.js';
import { vectorAt } from '../store/vector-blocks.js';

export interface AnnounceTargets {
  /** The memory index behind recall. */
  index: MemoryIndex;
  /** Completed tasks' description vectors, behind `tasks.relevant`. */
  taskIndex: MemoryIndex;
  /** The app's `change` listeners. */
  emit(event: ChangeEvent): void;
  /** The other engines on this database (tabs). */
  publish(change: ChangeMessage): void;
}

/**
 * What happens after every committed transaction (the change feed's
 * listener): its memory and task rows are mirrored into the indexes, then,
 * unless it was quiet, one `change` event and one cross-tab message say which
 * rows of which users changed.
 */
export function announcer(targets: AnnounceTargets): ChangeListener {
  return ({ rows, quiet }) => {
    const records = rows.filter((row) => row.table !== 'vectorBlocks');
    const vectors = vectorsOf(rows, new Set(records.map((row) => row.key)));

    const written: WrittenMemory[] = [];
    const deleted: string[] = [];
    for (const row of records) {
      if (memoryKindIn(row.table)) {
        if (row.value) written.push({ ...searchFormOf(row.value as StoredMemory), vector: vectors.get(row.key) });
        else deleted.push(row.key);
      } else if (row.table === TASK_RECORDS.table) {
        applyTask(targets.taskIndex, row.key, row.value as TaskRecord | undefined, vectors.get(row.key));
      }
    }
    applyDeleted(targets.index, deleted);
    applyWritten(targets.index, written);
    if (quiet || records.length === 0) return;

    const change: Omit<ChangeEvent, 'type'> = {
      written: records.filter((row) => row.value !== undefined).map((row) => row.key),
      deleted: records.filter((row) => row.value === undefined).map((row) => row.key),
      userIds: usersOf(records),
      tables: [...new Set(records.map((row) => row.table as ChangeTable))],
    };
    targets.emit({ type: 'change', ...change });
    targets.publish(change);
  };
}

/** The vectors the transaction wrote for `wanted` rows (a block rewrite also carries its other memories' unchanged vectors). */
function vectorsOf(rows: RowChange[], wanted: Set<string>): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  for (const row of rows) {
    if (row.table !== 'vectorBlocks' || !row.value) continue;
    const block = row.value as VectorBlock;
    block.ids.forEach((id, i) => {
      if (wanted.has(id)) vectors.set(id, vectorAt(block, i));
    });
  }
  return vectors;
}

/** The users a set of rows belongs to: their `userId`, or for a step, the user of its task in the same transaction. */
function usersOf(rows: RowChange[]): string[] {
  const users = new Set<string>();
  for (const row of rows) {
    const data = (row.value ?? row.previous) as { userId?: unknown } | undefined;
    if (typeof data?.userId === 'string') users.add(data.userId);
    else if (row.table === 'profiles') users.add(row.key);
  }
  return [...users];
}
