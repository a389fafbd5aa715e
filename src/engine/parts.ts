import type { Embedder, ProgressListener } from '../schema/embedder.js';
import type { TransformersEmbedderOptions } from '../embed/transformers-embedder.js';
import type { EngineContext } from '../engine-context.js';
import type { ResolvedExtraction } from '../extract/resolve-extraction.js';
import type { FactStore } from '../memories/facts/fact-store.js';
import type { CallAborts } from '../jobs/call-aborts.js';
import type { CallTracker } from '../jobs/call-tracker.js';
import type { JobQueue } from '../jobs/queue.js';
import type { EpisodeStore } from '../memories/episodes/episode-store.js';
import type { LLMProvider } from '../llm/types.js';
import type { TimeQueryParser } from '../time/query-parser.js';
import type { AccessTimes } from '../recall/access-times.js';
import type { CaptureOptions, ExtractionOptions, FactOptions } from '../schema/extraction-options.js';
import type { EngineSettings } from '../schema/options.js';
import type { TasksOptions } from '../schema/task.js';
import type { TurnOptions } from '../schema/turn-options.js';
import type { ChangeSignal } from '../index-sync/change-signal.js';
import type { PageFileStore } from '../store/page-file-store.js';
import type { SnapshotWriter } from '../index-sync/snapshot-writer.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { EngramEvent } from '../telemetry/events.js';
import type { TurnStore } from '../memories/turns/turn-store.js';
import type { EngineReplica } from '../replication/engine-replica.js';

/** Plain-data configuration; identical whether the engine runs in-process or in a worker. */
export interface EngineConfig extends EngineSettings {
  embedder?: TransformersEmbedderOptions;
  extraction?: ExtractionOptions;
  facts?: FactOptions;
  capture?: CaptureOptions;
  tasks?: TasksOptions;
  turns?: TurnOptions;
}

/** Things that cannot be cloned into a worker; in a worker they arrive as Comlink proxies. */
export interface EngineHooks {
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
  embedder?: Embedder;
  onProgress?: ProgressListener;
  onEvent?: (event: EngramEvent) => void;
  clock?: () => number;
  /** The LLM provider; without one, everything that needs no LLM still works. */
  llm?: LLMProvider;
  /** Reads the times a query names (createMemory's `timeParser`); English when absent. */
  timeParser?: TimeQueryParser;
  /** Where the index snapshot's page payloads live when the store brings a folder for them (the durable Node store). */
  pageFiles?: PageFileStore;
}

/**
 * The pieces an open engine is made of, built by `Engine.open` in dependency
 * order (see ./build-parts.ts). Every operation's handler receives them
 * (src/operations/).
 */
export interface EngineParts {
  ctx: EngineContext;
  calls: CallTracker;
  llm: LLMProvider | undefined;
  extraction: ResolvedExtraction;
  facts: FactStore;
  turns: TurnStore;
  episodes: EpisodeStore;
  tasks: TaskStore;
  queue: JobQueue;
  access: AccessTimes;
  signal: ChangeSignal;
  snapshots: SnapshotWriter | null;
  openedFrom: 'snapshot' | 'records';
  /** Memories the open re-read from the write log onto the snapshot (writes it missed). */
  replayed: number;
  /** Stops the work an open leaves for pauses: the keyword postings it deferred (index-sync/keyword-warmup.ts), the time reader's first read (time/warm-time-mentions.ts). */
  stopWarmups: () => void;
  /** Aborts LLM calls and jobs in flight when the engine closes. */
  closing: AbortController;
  /** The app's AbortSignals of cancellable calls (observe, recall, idle), by call id. */
  aborts: CallAborts;
  /** Sync's side of the store (replication/engine-replica.ts): one per call, as it keeps a batch's state while applying it. */
  replica(): EngineReplica;
}
