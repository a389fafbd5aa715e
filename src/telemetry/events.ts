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

export interface DedupEvent {
  type: 'dedup';
  userId: string;
  replacedId: string;
  byId: string;
  similarity: number;
}

export interface EvictionEvent {
  type: 'eviction';
  userId: string;
  evicted: string[];
  reason: 'ttl' | 'cap' | 'quota';
}

export interface ChangeEvent {
  type: 'change';
  /** What changed: ids written or deleted, per table. Emitted after the transaction commits. */
  written: string[];
  deleted: string[];
}

export interface JobEvent {
  type: 'job';
  userId: string;
  jobId: string;
  kind: string;
  outcome: 'dropped' | 'retry';
  reason: string;
  attempts: number;
}

export interface ExtractionEvent {
  type: 'extraction';
  userId: string;
  outcome: 'ok' | 'skipped' | 'failed';
  reason?: string;
  facts: number;
  hasEpisode: boolean;
}

export type EngramEvent = EpisodeEvent | DedupEvent | EvictionEvent | ChangeEvent | JobEvent | ExtractionEvent;
export type EngramEventType = EngramEvent['type'];
export type EventOf<T extends EngramEventType> = Extract<EngramEvent, { type: T }>;
export type EventListener<T extends EngramEventType> = (event: EventOf<T>) => void;
