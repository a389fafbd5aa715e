import type { SyncStatus } from '../schema/sync-options.js';

/**
 * Typed events emitted by engram. `memory.on(type, listener)` subscribes;
 * the same events are kept in the `events` table for auditing.
 */
export interface EpisodeEvent {
  type: 'episode';
  userId: string;
  outcome: 'stored' | 'timeout' | 'provider_error' | 'parse_error' | 'store_failed' | 'skipped';
  memoryId?: string;
  reason?: string;
  costUsd: number;
  durationMs: number;
}

/** An episode was replaced by a newer near-duplicate of the same user (`lifecycle.dedupThreshold`). */
export interface DedupEvent {
  type: 'dedup';
  userId: string;
  replacedId: string;
  byId: string;
  similarity: number;
}

/** Episodes were evicted: by TTL, by the per-user cap, or to make room when storage was full. */
export interface EvictionEvent {
  type: 'eviction';
  userId: string;
  evicted: string[];
  reason: 'ttl' | 'cap' | 'quota';
}

/**
 * The tables a `change` event reports on: everything the app can read back.
 * Spelled out for the public declarations; memories/registry.ts fails to
 * compile if a shipped memory kind's table is missing here.
 */
export type ChangeTable = 'episodes' | 'facts' | 'turns' | 'tasks' | 'steps' | 'patterns' | 'profiles';

/**
 * One committed transaction's changes (or another tab's, as it arrives):
 * emitted once per committed write, after it committed, never for one that
 * rolled back. Recall's access-time bookkeeping is not reported.
 */
export interface ChangeEvent {
  type: 'change';
  /** Keys of the rows written: episode, fact, task, step (`taskId#n`) and pattern ids, and a profile's userId. */
  written: string[];
  /** Keys of the rows deleted. */
  deleted: string[];
  /** The users whose data changed. */
  userIds: string[];
  /** The tables that changed. */
  tables: ChangeTable[];
}

/** A background job (an episode write, pattern extraction) was retried or dropped. */
export interface JobEvent {
  type: 'job';
  userId: string;
  jobId: string;
  kind: string;
  outcome: 'dropped' | 'retry';
  reason: string;
  attempts: number;
}

/** A turn's stage-1 extraction ran, was skipped or failed, and how many facts it found. */
export interface ExtractionEvent {
  type: 'extraction';
  userId: string;
  outcome: 'ok' | 'skipped' | 'failed';
  reason?: string;
  facts: number;
  hasEpisode: boolean;
}

/** Sync's status changed (`memory.sync.status`): its state, pending changes, last success and last error. */
export interface SyncEvent {
  type: 'sync';
  status: SyncStatus;
}

/** Every event `memory.on(type, listener)` can deliver. */
export type EngramEvent = EpisodeEvent | DedupEvent | EvictionEvent | ChangeEvent | JobEvent | ExtractionEvent | SyncEvent;
/** The event names of `memory.on`: `episode`, `dedup`, `eviction`, `change`, `job`, `extraction`. */
export type EngramEventType = EngramEvent['type'];
export type EventOf<T extends EngramEventType> = Extract<EngramEvent, { type: T }>;
export type EventListener<T extends EngramEventType> = (event: EventOf<T>) => void;
