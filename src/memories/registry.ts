/**
 * The one list of memory kinds. Everything that must see every kind reads
 * it here rather than naming facts, episodes and turns: the change feed and
 * write mark, the announcer and cross-tab signal, replay, rebuild and the
 * snapshot's reads, recall's reads and access times, export, import, forget,
 * the id space, the database schema, `engram stats` and the change event's
 * tables. The API, for code that handles every kind (sync, quotas):
 *
 * - `MEMORY_KINDS` the kinds engram ships (EPISODES, FACTS, TURNS), in the
 *   order every enumeration follows; `memoryKinds()` those plus any
 *   registered with `registerMemoryKind` (a test's).
 * - `memoryKindIn(table)`, `memoryKindOf(type)`: a kind by its table or by
 *   its records' `type`; `memoryKindsSearchedAs(kind)`: by index kind.
 * - `searchFormOf(record)`: a record's index document and indexed text.
 * - `TASK_RECORDS`, `idSpaceKinds()`: tasks share the id space and vectors.
 *
 * A kind declares (memory-kind.ts) its table and Dexie indexes, record
 * schema, indexed text and index document, vector kind (`type`), what it is
 * searched as, and its session and sequence fields. Writes go through the
 * commit scope (store/commit.ts): `put`/`remove` a kind's records with their
 * vectors, `get` one or NotFoundError.
 */
import { episodeRecordSchema, type Episode } from '../schema/episode.js';
import { factRecordSchema, type Fact } from '../schema/fact.js';
import type { TaskRecord } from '../schema/task.js';
import { turnRecordSchema, type Turn } from '../schema/turn.js';
import { indexDocOf, type IndexDoc } from '../search/index-doc.js';
import { indexedText } from '../search/indexed-text.js';
import type { ChangeTable } from '../telemetry/events.js';
import { defineMemoryKind, type MemoryKind, type StoredMemory, type VectoredKind } from './memory-kind.js';

export type { MemoryKind, StoredMemory, StoredRecord, VectoredKind } from './memory-kind.js';

/** Stable things about the user, with their history (memories/facts/). */
export const FACTS = defineMemoryKind<Fact, 'facts'>({
  type: 'fact',
  table: 'facts',
  label: 'a fact',
  schema: factRecordSchema,
  indexes: 'id, [userId+createdAt], supersededBy, *tags',
  indexedText,
  indexDoc: indexDocOf,
  retired: (fact) => Boolean(fact.supersededBy),
  sessionField: 'sessionId',
});

/** What happened and what was learned (memories/episodes/). */
export const EPISODES = defineMemoryKind<Episode, 'episodes'>({
  type: 'episode',
  table: 'episodes',
  label: 'an episode',
  schema: episodeRecordSchema,
  indexes: 'id, userId, [userId+createdAt], [userId+endedAt], sessionId, parentId, *tags, *participants, *toolsUsed, *entities, outcomeStatus, state',
  indexedText,
  indexDoc: indexDocOf,
  sessionField: 'sessionId',
});

/** Messages of a conversation, kept as they were said (memories/turns/). */
export const TURNS = defineMemoryKind<Turn, 'turns'>({
  type: 'turn',
  table: 'turns',
  label: 'a turn',
  schema: turnRecordSchema,
  indexes: 'id, [userId+createdAt], [userId+seq], sessionId',
  indexedText,
  indexDoc: indexDocOf,
  sessionField: 'sessionId',
  sequenceField: 'seq',
});

/**
 * The memory kinds engram ships, in the order every enumeration of them
 * follows (an export's lines, an index rebuilt from the records, the
 * columns of `engram stats`).
 */
export const MEMORY_KINDS = [EPISODES, FACTS, TURNS] as const;

/** The table of a memory kind engram ships. */
export type MemoryTable = (typeof MEMORY_KINDS)[number]['table'];

/** The public `ChangeTable` (telemetry/events.ts) names every shipped kind's table: this fails to compile otherwise. */
const changeTablesNameEveryKind: MemoryTable extends ChangeTable ? true : never = true;
void changeTablesNameEveryKind;

/** Agent tasks: not memories (recall never returns one), but they share the id space and the vector blocks (a completed task's description). */
export const TASK_RECORDS: VectoredKind<TaskRecord> = {
  type: 'task',
  table: 'tasks',
  label: 'a task',
  searchable: (task) => task.status === 'completed',
};

const registered: MemoryKind[] = [...MEMORY_KINDS];
let tables = new Map(registered.map((kind) => [kind.table, kind]));
let types = new Map(registered.map((kind) => [kind.type, kind]));

/** Every memory kind: engram's own, then those registered (registerMemoryKind). */
export function memoryKinds(): readonly MemoryKind[] {
  return registered;
}

/** The memory kind whose records have this `type`, if any. */
export function memoryKindOf(type: string): MemoryKind | undefined {
  return types.get(type);
}

/** The memory kind stored in this table, if any. */
export function memoryKindIn(table: string): MemoryKind | undefined {
  return tables.get(table);
}

/** The memory kinds whose index documents are ranked as `searched` (a hit's `kind`): where recall reads a hit's record. */
export function memoryKindsSearchedAs(searched: string): MemoryKind[] {
  return registered.filter((kind) => kind.searchAs === searched);
}

/** A memory's document in the search index (null: not searchable, as a record of no registered kind) and its indexed text, by its kind. */
export function searchFormOf(record: StoredMemory): { id: string; doc: IndexDoc | null; text: string } {
  const kind = types.get(record.type);
  return kind ? { id: record.id, doc: kind.indexDoc(record), text: kind.indexedText(record) } : { id: record.id, doc: null, text: '' };
}

/** Every kind of record in the id space the memories and tasks share, memories first. */
export function idSpaceKinds(): readonly VectoredKind[] {
  return [...registered, TASK_RECORDS as unknown as VectoredKind];
}

/**
 * Adds a memory kind beyond engram's own (a test's, for now: the public API
 * names none). Every database opened afterwards has its table, and every
 * part of engram that sees all kinds sees it. Returns the call that removes
 * it again. A kind's `type` and `table` must be new (RESERVED_TYPES are taken).
 */
export function registerMemoryKind<R extends StoredMemory>(kind: MemoryKind<R>): () => void {
  const problem = registrationProblem(kind as unknown as MemoryKind);
  if (problem) throw new Error(`Cannot register the memory kind "${kind.type}": ${problem}.`);
  const added = kind as unknown as MemoryKind;
  registered.push(added);
  reindex();
  return () => {
    const at = registered.indexOf(added);
    if (at >= MEMORY_KINDS.length) registered.splice(at, 1);
    reindex();
  };
}

/** Types other records take: the vectors' kind of tasks, and the other lines of an export (portability/export-format.ts). */
const RESERVED_TYPES: readonly string[] = [TASK_RECORDS.type, 'profile', 'vector', 'step', 'pattern', 'end'];

function registrationProblem(kind: MemoryKind): string | undefined {
  if (!/^[a-z][A-Za-z0-9_-]*$/.test(kind.type) || !/^[a-z][A-Za-z0-9_-]*$/.test(kind.table)) return 'its type and table must be identifiers starting with a lower-case letter';
  if (types.has(kind.type) || RESERVED_TYPES.includes(kind.type)) return `the type "${kind.type}" is taken`;
  if (tables.has(kind.table) || kind.table === TASK_RECORDS.table) return `the table "${kind.table}" is taken`;
  if (kind.indexes.split(',')[0]!.trim() !== 'id') return 'its table must be keyed by `id` (indexes start with "id")';
  return undefined;
}

function reindex(): void {
  tables = new Map(registered.map((kind) => [kind.table, kind]));
  types = new Map(registered.map((kind) => [kind.type, kind]));
}
