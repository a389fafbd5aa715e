/**
 * Every public type of engram, in one place (as Dexie keeps its `public/types`):
 * what `createMemory()` takes and what its methods return. `src/index.ts`
 * re-exports this file whole; internal modules are free to move.
 */
export type { MemoryOptions } from '../schema/memory-options.js';
export type { AddManyFacts, LiveQuerySpec } from '../facade/memory.js';
export type { CallOptions } from '../facade/call-signal.js';
export type { LiveQuery, LiveSnapshot, LiveObserver, Unsubscribe } from '../facade/live-query.js';
export type { RecallHit } from '../recall/recall.js';
export type { MemoryRecord } from '../schema/memory-record.js';
export type { ImportSummary } from '../portability/import.js';
export type { ScoreParts } from '../search/ranking.js';
export type { RankingOptions } from '../schema/ranking-options.js';
export type { LifecycleOptions, EmbedderOptions, IndexSnapshotOptions } from '../schema/options.js';
export type { Episode, EpisodeInput, EpisodePatch } from '../schema/episode.js';
export type { Fact, FactInput, FactPatch, FactCategory, AddOptions, AddManyOptions } from '../schema/fact.js';
export type { Turn, TurnInput, TurnListQuery } from '../schema/turn.js';
export type { TimeMention } from '../schema/time-mention.js';
export type { TimeQueryParser, ParsedTimeQuery, LocalWindow, SessionReference, QuerySpan } from '../time/query-parser.js';
export type { TurnOptions } from '../schema/turn-options.js';
export type { RecallOptions, EpisodeListQuery, FactListQuery, ExportOptions, MetadataFilter } from '../schema/query.js';
export type { MemoryType, Metadata } from '../schema/common.js';
export type { FormatContextOptions } from '../recall/format-context.js';
export type { SequenceOptions } from '../schema/sequence-options.js';
export type { Embedder, Progress, ProgressListener } from '../schema/embedder.js';
export type { TransformersEmbedderOptions } from '../embed/transformers-embedder.js';
export type {
  EngramEvent,
  EngramEventType,
  EpisodeEvent,
  DedupEvent,
  EvictionEvent,
  ChangeEvent,
  ChangeTable,
  JobEvent,
  ExtractionEvent,
  SyncEvent,
} from '../telemetry/events.js';
export type { SyncOptions, SyncStatus } from '../schema/sync-options.js';
export type { MemorySync } from '../facade/memory-sync.js';
export type { SyncRoundResult } from '../replication/sync-round.js';
export type { SyncKeyInput } from '../replication/sync-key.js';
export type { HubClientOptions } from '../replication/hub-client.js';
export type { LLMProvider, LLMRequest, LLMResponse, LLMUsage } from '../llm/types.js';
export type { OpenAICompatibleOptions } from '../llm/openai-compatible.js';
export type { HttpProxyOptions } from '../llm/http-proxy.js';
export type { ObserveInput, ObserveResult, ObserveReason } from '../extract/observe.js';
export type { CloseEpisodeOptions, CloseEpisodeResult, CloseEpisodeReason } from '../memories/episodes/close-episode.js';
export type { EpisodeMetadata } from '../memories/episodes/episode-metadata.js';
export type { ExtractionOptions, FactOptions, CaptureOptions } from '../schema/extraction-options.js';
export type { Profile, ProfilePatch } from '../schema/profile.js';
export type { CompletedTask, RelevantTask, TaskStats } from '../tasks/task-store.js';
export type {
  TaskStart,
  TaskType,
  TaskContext,
  TaskOutcome,
  StepInput,
  StepResult,
  StepRecord,
  TaskRecord,
  PatternRecord,
  RewardBreakdown,
  Reflection,
  TaskQuery,
  TasksOptions,
} from '../schema/task.js';
export type { JobRecord, EventRecord } from '../schema/records.js';
export type { ErrorCode, ValidationIssue, WorkerStartReason, ContextErrorContext, SyncErrorReason } from '../errors.js';
