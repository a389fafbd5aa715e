/**
 * engram: on-device long-term memory for AI agents and chat apps.
 *
 *   const memory = await createMemory({ name: 'my-app' });
 *   await memory.episodes.add({ text: 'Chose Postgres for the JSON support' });
 *   const hits = await memory.recall('which database?');
 *   const prompt = memory.formatContext(hits, { timeZone: 'Europe/Lisbon' });
 */
export { createMemory, Memory } from './memory.js';
export type { MemoryOptions } from './schema/memory-options.js';
export type { RecallHit, ImportSummary, MemoryRecord } from './engine.js';
export type { ScoreParts, RankingOptions } from './search/ranking.js';
export type { LifecycleOptions, EmbedderOptions, IndexSnapshotOptions } from './schema/options.js';
export type { Episode, EpisodeInput, EpisodePatch } from './schema/episode.js';
export type { Fact, FactInput, FactPatch, FactCategory, AddManyOptions } from './schema/fact.js';
export type { RecallOptions, EpisodeListQuery, FactListQuery, ExportOptions, MetadataFilter } from './schema/query.js';
export type { MemoryType, Metadata } from './schema/common.js';
export { DEFAULT_USER_ID } from './schema/common.js';
export { formatContext, type FormatContextOptions } from './recall/format-context.js';
export { formatReplay } from './recall/format-replay.js';
export type { SequenceOptions } from './recall/sequence.js';
export type { Embedder, Progress, ProgressListener } from './embed/embedder.js';
export { loadTransformersEmbedder, DEFAULT_EMBEDDING_MODEL, type TransformersEmbedderOptions } from './embed/transformers-embedder.js';
export type { EngramEvent, EngramEventType, EpisodeEvent, DedupEvent, EvictionEvent, ChangeEvent, JobEvent, ExtractionEvent } from './telemetry/events.js';
export type { LLMProvider, LLMRequest, LLMResponse, LLMUsage } from './llm/types.js';
export { openAICompatible, type OpenAICompatibleOptions } from './llm/openai-compatible.js';
export { httpProxy, type HttpProxyOptions } from './llm/http-proxy.js';
export type { ObserveInput, ObserveResult, ObserveReason } from './extract/observe.js';
export type { CloseEpisodeOptions, CloseEpisodeResult, CloseEpisodeReason } from './lifecycle/close-episode.js';
export type { EpisodeMetadata } from './extract/episode-metadata.js';
export type { ExtractionOptions, FactOptions, CaptureOptions } from './extract/options.js';
export { PROMPT_VERSION } from './extract/prompts.js';
export type { Profile, ProfilePatch } from './schema/profile.js';
export { Task } from './tasks/task-handle.js';
export type { CompletedTask, RelevantTask, TaskStats, TasksOptions } from './tasks/task-store.js';
export type { TaskStart, TaskType, TaskContext, TaskOutcome, StepInput, StepResult, StepRecord, TaskRecord, PatternRecord, RewardBreakdown, Reflection, TaskQuery } from './schema/task.js';
export { LIMITS as TASK_LIMITS } from './tasks/limits.js';
export { computeReward } from './tasks/reward.js';
export type { JobRecord, EventRecord } from './store/records.js';
export {
  EngramError,
  ValidationError,
  LimitError,
  NotFoundError,
  ProviderError,
  ClosedError,
  EmbedderError,
  StorageError,
  QuotaError,
  ImportError,
  WorkerStartError,
  type WorkerStartReason,
  type ErrorCode,
  type ValidationIssue,
} from './errors.js';
