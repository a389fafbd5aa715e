import type * as z from 'zod/mini';
import { episodeRecordSchema } from '../schema/episode.js';
import { factRecordSchema } from '../schema/fact.js';
import { profileRecordSchema } from '../schema/profile.js';
import { patternRecordSchema, stepRecordSchema, taskRecordSchema } from '../schema/task.js';
import { turnRecordSchema } from '../schema/turn.js';

/**
 * Every kind of record a memory syncs, in one place: the kind's name on the
 * wire (the same names the export line format uses), the table that holds
 * it, the field that is its id, the zod schema a pulled record must pass,
 * how two versions merge, and whether it has a vector that travels with it.
 *
 * A kind added to engram syncs once it is listed here; when the registry of
 * memory kinds (src/memories/) lands, this list is read from it instead.
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

export const SYNCED_KINDS = [
  { kind: 'episode', table: 'episodes', idField: 'id', schema: episodeRecordSchema, merge: 'record', vector: 'memory' },
  { kind: 'fact', table: 'facts', idField: 'id', schema: factRecordSchema, merge: 'retirement', vector: 'memory' },
  { kind: 'turn', table: 'turns', idField: 'id', schema: turnRecordSchema, merge: 'record', vector: 'memory' },
  { kind: 'task', table: 'tasks', idField: 'id', schema: taskRecordSchema, merge: 'record', vector: 'task' },
  { kind: 'step', table: 'steps', idField: 'id', schema: stepRecordSchema, merge: 'record', vector: 'none' },
  { kind: 'pattern', table: 'patterns', idField: 'id', schema: patternRecordSchema, merge: 'record', vector: 'none' },
  { kind: 'profile', table: 'profiles', idField: 'userId', schema: profileRecordSchema, merge: 'fields', vector: 'none' },
] as const satisfies readonly SyncedKind[];

export type SyncedTable = 'episodes' | 'facts' | 'turns' | 'tasks' | 'steps' | 'patterns' | 'profiles';

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
