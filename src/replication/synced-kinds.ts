import type * as z from 'zod/mini';
import { MEMORY_KINDS } from '../memories/registry.js';
import { profileRecordSchema } from '../schema/profile.js';
import { patternRecordSchema, stepRecordSchema, taskRecordSchema } from '../schema/task.js';

/**
 * Every kind of record a memory syncs, in one place: the kind's name on the
 * wire (the same names the export line format uses), the table that holds
 * it, the field that is its id, the zod schema a pulled record must pass,
 * how two versions merge, and whether it has a vector that travels with it.
 *
 * The memory kinds come from the registry (src/memories/registry.ts): a
 * kind engram ships syncs with no change here, and one with a `retired`
 * predicate (facts) merges so that a retirement is never undone. The
 * agent's records and profiles, which are not memory kinds, are listed here.
 */
export interface SyncedKind {
  kind: string;
  table: SyncedTable;
  /** The record's id field (a profile is keyed by its user). */
  idField: 'id' | 'userId';
  schema: z.ZodMiniType;
  /**
   * - 'record': the later version is kept whole (last writer wins);
   * - 'retirement': the same, except that a retirement is never undone by a
   *   later edit that left the fact current (field-merge.ts `mergeRetirement`);
   * - 'fields': each field keeps its own latest write (field-merge.ts `mergeFields`).
   */
  merge: 'record' | 'retirement' | 'fields';
  /** Whether the record has an embedding: memories always, tasks once completed. */
  vector: 'memory' | 'task' | 'none';
}

export const SYNCED_KINDS: readonly SyncedKind[] = [
  ...MEMORY_KINDS.map(
    (memory): SyncedKind => ({ kind: memory.type, table: memory.table, idField: 'id', schema: memory.schema, merge: memory.retired ? 'retirement' : 'record', vector: 'memory' }),
  ),
  { kind: 'task', table: 'tasks', idField: 'id', schema: taskRecordSchema, merge: 'record', vector: 'task' },
  { kind: 'step', table: 'steps', idField: 'id', schema: stepRecordSchema, merge: 'record', vector: 'none' },
  { kind: 'pattern', table: 'patterns', idField: 'id', schema: patternRecordSchema, merge: 'record', vector: 'none' },
  { kind: 'profile', table: 'profiles', idField: 'userId', schema: profileRecordSchema, merge: 'fields', vector: 'none' },
];

export type SyncedTable = (typeof MEMORY_KINDS)[number]['table'] | 'tasks' | 'steps' | 'patterns' | 'profiles';

const byKind = new Map<string, SyncedKind>(SYNCED_KINDS.map((k) => [k.kind, k]));
const byTable = new Map<string, SyncedKind>(SYNCED_KINDS.map((k) => [k.table, k]));

export const SYNCED_TABLES: readonly SyncedTable[] = SYNCED_KINDS.map((k) => k.table);

export function syncedKind(kind: string): SyncedKind | undefined {
  return byKind.get(kind);
}

export function syncedKindOfTable(table: string): SyncedKind | undefined {
  return byTable.get(table);
}

/** The key of a record's outbox and version rows: its kind and id. */
export function recordKey(kind: string, id: string): string {
  return `${kind}/${id}`;
}
