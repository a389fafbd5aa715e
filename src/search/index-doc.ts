import type { MemoryType } from '../schema/common.js';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import type { TaskRecord } from '../schema/task.js';
import type { Turn } from '../schema/turn.js';
import type { TimeMention } from '../schema/time-mention.js';
import { timeMentions } from '../time/time-mentions.js';

/**
 * What the in-memory index keeps about each memory: just enough to filter and
 * rank without touching IndexedDB. The full record stays in the database.
 */
export interface IndexDoc {
  id: string;
  userId: string;
  /** 'task' only in the separate task index behind `tasks.relevant`. */
  kind: MemoryType | 'task';
  createdAt: number;
  /** The clock recency decays from: the memory's own time, or its last real use (`recencyClockOf`). */
  touchedAt: number;
  tags: readonly string[];
  importance: number;
  pinned: boolean;
  /** Archived episodes are searchable only on request. */
  archived: boolean;
  /**
   * The times its text gives relative to when it was written ("last week";
   * time/time-mentions.ts), resolved when it is indexed: a memory with any
   * ranks higher on a question about time (`ranking.timeQuestionBoost`), and
   * recall hands them to `formatContext`. Empty (NO_TIMES) for most.
   */
  times: readonly TimeMention[];
  /** Fields `filter` can match: the record's metadata plus its structured fields. */
  fields: Readonly<Record<string, unknown>>;
}

/**
 * The speaker of a document, for the ranking: a turn's (its `speaker`
 * field); other memories have none. Rows of the index keep it as a code
 * (search/row-signals.ts), read the same way from columns (doc-columns.ts).
 */
export function speakerOf(doc: Pick<IndexDoc, 'kind' | 'fields'>): string | undefined {
  const speaker = doc.kind === 'turn' ? doc.fields.speaker : undefined;
  return typeof speaker === 'string' ? speaker : undefined;
}

/**
 * When a memory's recency starts: its own time (`createdAt`), or the last
 * recall that returned it (`lastAccessedAt`) when that came after its last
 * write. Never the time it was written or imported (`updatedAt`): a history
 * imported with `turns.addMany` keeps the order of its own times, and
 * writing a memory again does not make it recent. A new record's
 * `lastAccessedAt` is its write time (not later than `updatedAt`), so it
 * counts only once a recall has touched it.
 */
export function recencyClockOf(record: { createdAt: number; updatedAt: number; lastAccessedAt: number }): number {
  return record.lastAccessedAt > record.updatedAt ? Math.max(record.createdAt, record.lastAccessedAt) : record.createdAt;
}

/** The session of a document (its `sessionId` field, which every kind of memory has; tasks have none). */
export function sessionOf(doc: Pick<IndexDoc, 'fields'>): string | undefined {
  const session = doc.fields.sessionId;
  return typeof session === 'string' ? session : undefined;
}

/** The `times` of the many documents that give none: one shared empty array, not one per document. */
export const NO_TIMES: readonly TimeMention[] = Object.freeze([]);

function timesOf(text: string, createdAt: number): readonly TimeMention[] {
  const times = timeMentions(text, createdAt);
  return times.length > 0 ? times : NO_TIMES;
}

/** A record's document, or null when it must not be searchable at all (retired facts). */
export function indexDocOf(record: Episode | Fact | Turn): IndexDoc | null {
  if (record.type === 'turn') {
    return {
      id: record.id,
      userId: record.userId,
      kind: 'turn',
      createdAt: record.createdAt,
      touchedAt: recencyClockOf(record),
      tags: record.tags,
      importance: record.importance,
      pinned: record.pinned,
      archived: false,
      times: timesOf(record.text, record.createdAt),
      fields: { ...record.metadata, speaker: record.speaker, sessionId: record.sessionId },
    };
  }
  if (record.type === 'fact') {
    if (record.status === 'retired') return null;
    return {
      id: record.id,
      userId: record.userId,
      kind: 'fact',
      createdAt: record.createdAt,
      touchedAt: recencyClockOf(record),
      tags: record.tags,
      importance: record.importance,
      pinned: record.pinned,
      archived: false,
      times: timesOf(record.text, record.createdAt),
      fields: { ...record.metadata, category: record.category, source: record.source, sessionId: record.sessionId },
    };
  }
  return {
    id: record.id,
    userId: record.userId,
    kind: 'episode',
    createdAt: record.createdAt,
    touchedAt: recencyClockOf(record),
    tags: record.tags,
    importance: record.importance,
    pinned: record.pinned,
    archived: record.state === 'archived',
    times: timesOf(record.text, record.createdAt),
    fields: {
      ...record.metadata,
      participants: record.participants,
      toolsUsed: record.toolsUsed,
      entities: record.entities,
      keyDecisions: record.keyDecisions,
      actors: record.actors,
      outcomeStatus: record.outcomeStatus,
      quality: record.quality,
      state: record.state,
      source: record.source,
      sessionId: record.sessionId,
      provenance: record.provenance,
      startedAt: record.startedAt,
      endedAt: record.endedAt,
    },
  };
}

/** The task index document of a task (behind `tasks.relevant`; only completed tasks are indexed). */
export function taskDoc(task: TaskRecord): IndexDoc {
  return {
    id: task.id,
    userId: task.userId,
    kind: 'task',
    createdAt: task.startedAt,
    touchedAt: task.completedAt ?? task.startedAt,
    tags: task.context.tags,
    importance: 0.5,
    pinned: false,
    archived: false,
    times: NO_TIMES,
    fields: { type: task.type, domain: task.context.domain, language: task.context.language },
  };
}
