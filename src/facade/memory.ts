import type { ImportSummary, RecallHit } from '../engine.js';
import { ClosedError } from '../errors.js';
import type { ObserveResult } from '../extract/observe.js';
import { forgetAUser } from '../operations/forget.js';
import { waitForIdle } from '../operations/idle.js';
import { readActivity, readInfo } from '../operations/inspect.js';
import { observeTurn } from '../operations/observe.js';
import type { AnyOperation, GivenArgs } from '../operations/operation.js';
import type { ResultOf } from '../engine/handlers/table.js';
import { exportMemories, importMemories } from '../operations/portability.js';
import { getProfile, updateProfile } from '../operations/profile.js';
import { pruneNow } from '../operations/prune.js';
import { recallMemories } from '../operations/recall.js';
import * as taskOps from '../operations/tasks.js';
import { formatContext, type FormatContextOptions } from '../recall/format-context.js';
import { formatReplay } from '../recall/format-replay.js';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import { memoryOptionsSchema, type MemoryOptions } from '../schema/memory-options.js';
import type { ObserveInput } from '../schema/observe-input.js';
import { parseInput } from '../schema/parse.js';
import { profileLine, type Profile, type ProfilePatch } from '../schema/profile.js';
import type { EpisodeListQuery, ExportOptions, FactListQuery, RecallOptions } from '../schema/query.js';
import type { EventRecord, JobRecord } from '../schema/records.js';
import type { PatternRecord, StepRecord, TaskContext, TaskQuery, TaskRecord, TaskStart } from '../schema/task.js';
import type { Turn, TurnListQuery } from '../schema/turn.js';
import type { RelevantTask, TaskStats } from '../tasks/task-store.js';
import { Emitter } from '../telemetry/emitter.js';
import type { EngramEventType, EventListener } from '../telemetry/events.js';
import type { CallOptions } from './call-signal.js';
import { connect } from './connect.js';
import { closeOptionsSchema, type Connection } from './connection.js';
import { noDirectory, type DurableOpener } from './durable-opener.js';
import { episodesApi } from './episodes-api.js';
import { factsApi } from './facts-api.js';
import { forward } from './forward.js';
import { turnsApi } from './turns-api.js';
import type { LiveQuery } from './live-query.js';
import { liveQueryOf, liveQuerySchema, type LiveQuerySpec } from './live-spec.js';
import { refuseContentScript } from './page-origin-guard.js';
import { estimateStorage, persistStorage } from './storage-manager.js';
import { Task } from './task-handle.js';
import { MemorySync } from './memory-sync.js';
import type { SyncStatus } from '../schema/sync-options.js';

export type { LiveQuerySpec } from './live-spec.js';

export type { AddManyFacts } from './facts-api.js';

/**
 * A long-term memory. Created by `createMemory()`; every method that reaches
 * the engine is an operation of src/operations/: it is validated and
 * forwarded (./forward.ts) to the engine, in-process or in a Web Worker.
 */
export class Memory {
  private closed = false;

  /**
   * Sync with other devices through a hub (docs/sync.md): `start(options?)`,
   * `stop()`, `now()` (one round), and `status` (also the `sync` event and
   * `live({ sync: {} })`). Options come from `createMemory({ sync })` or `start()`.
   */
  readonly sync: MemorySync;

  private constructor(
    private readonly connection: Connection,
    private readonly emitter: Emitter,
    private readonly taskBuffering: { flushAt: number; flushIntervalMs: number },
    storeName: string,
  ) {
    this.sync = new MemorySync(connection.engine, emitter, storeName);
  }

  /** @internal use `createMemory()`; `openDurable` is the build's (see ./durable-opener.ts). */
  static async create(options: MemoryOptions, openDurable: DurableOpener = noDirectory): Promise<Memory> {
    const opts = parseInput(memoryOptionsSchema, options, 'createMemory', { copy: false }) as MemoryOptions;
    refuseContentScript(opts.allowPageOrigin);
    const emitter = new Emitter();
    const connection = await connect(opts, openDurable, emitter);
    const memory = new Memory(connection, emitter, { flushAt: opts.tasks?.flushAt ?? 50, flushIntervalMs: opts.tasks?.flushIntervalMs ?? 5000 }, opts.name);
    if (opts.sync) {
      try {
        memory.sync.configure(opts.sync);
        if (opts.sync.autoStart !== false) await memory.sync.start();
      } catch (error) {
        await memory.close();
        throw error;
      }
    }
    return memory;
  }

  /** Episodes: "what happened, what we learned". */
  readonly episodes = episodesApi(this.invoke.bind(this));

  /** Facts: stable things about the user. */
  readonly facts = factsApi(this.invoke.bind(this));

  /**
   * Conversation turns: messages kept as they were said, each with its
   * speaker, session and time. `observe()` keeps the exchange as two turns
   * when no LLM is configured (see createMemory's `turns`); `add` and
   * `addMany` bring in a conversation the app already has. Recalled like
   * facts and episodes (`types: ['turn']` for turns alone).
   */
  readonly turns = turnsApi(this.invoke.bind(this));

  /** Agent task episodes: record steps, get a reward, a reflection and patterns back. */
  readonly tasks = {
    /** Starts recording a task: `task.log()` its steps, then `task.complete()` it. */
    start: async (input: TaskStart): Promise<Task> => new Task(this.connection.engine, await this.invoke(taskOps.startTask, input), this.taskBuffering),
    /** A task with its steps; unknown id → NotFoundError carrying the id. */
    get: (id: string): Promise<TaskRecord & { steps: StepRecord[] }> => this.invoke(taskOps.getTask, id),
    /** A user's tasks, newest first. */
    list: (options: { userId?: string; limit?: number } = {}): Promise<TaskRecord[]> => this.invoke(taskOps.listTasks, options),
    /** Completed tasks most useful for a new one (description, context match and reward; see tasks/context-match.ts). */
    relevant: (query: TaskQuery, options: { k?: number; userId?: string } = {}): Promise<RelevantTask[]> => this.invoke(taskOps.relevantTasks, query, options),
    /** Counts over a user's tasks and patterns. */
    stats: (options: { userId?: string } = {}): Promise<TaskStats> => this.invoke(taskOps.taskStats, options),
  };

  /** Reusable patterns extracted from completed tasks. */
  readonly patterns = {
    /** Patterns whose domain or language matches, most confident first. */
    relevant: (context: Partial<TaskContext>, options: { k?: number; userId?: string } = {}): Promise<PatternRecord[]> =>
      this.invoke(taskOps.relevantPatterns, context, options),
  };

  /** The compact structured profile of a user. */
  readonly profile = {
    /** A user's profile (empty fields when nothing is known). */
    get: (userId?: string): Promise<Profile> => this.invoke(getProfile, userId),
    /** Merges `patch` into a user's profile; each field is validated. */
    update: (userId: string, patch: ProfilePatch): Promise<Profile> => this.invoke(updateProfile, userId, patch),
  };

  /** One compact profile line for prompts (empty when nothing is known); pass it to `formatContext`. */
  async profileLine(userId?: string): Promise<string> {
    return profileLine(await this.profile.get(userId));
  }

  /**
   * After each conversation turn: one LLM call extracts facts and decides
   * whether the exchange deserves an episode; the episode is then written in
   * the background (see `idle()`). Never throws for LLM failures: they come
   * back as `reason`. With `signal`, an abort before the turn's write
   * rejects with an `AbortError` and writes nothing (the LLM call is aborted
   * too); an abort after the write has committed changes nothing.
   */
  observe(input: ObserveInput, options: CallOptions = {}): Promise<ObserveResult> {
    return this.invoke(observeTurn, input, options);
  }

  /** Queued background jobs and the most recent recorded events, for inspection. */
  activity(options: { limit?: number } = {}): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> {
    return this.invoke(readActivity, options);
  }

  /** The memories that matter for `query`, best first, each with its score and the parts of the score. */
  recall(query: string, options: RecallOptions & CallOptions = {}): Promise<RecallHit[]> {
    return this.invoke(recallMemories, query, options);
  }

  /** Renders hits as compact prompt lines (synchronous; no engine call). */
  formatContext(hits: readonly RecallHit[], options: FormatContextOptions = {}): string {
    return formatContext(hits, options);
  }

  /** Renders episodes as chronological replay blocks (synchronous). */
  formatReplay(episodes: readonly Episode[], options: { timeZone?: string } = {}): string {
    return formatReplay(episodes, options);
  }

  /** Applies TTL and the count cap now; returns the evicted ids. */
  prune(options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
    return this.invoke(pruneNow, options);
  }

  /** Deletes everything stored for one user (episodes, facts, turns, tasks, profile, queued jobs). */
  forget(options: { userId: string }): Promise<{ episodes: number; facts: number; turns: number }> {
    return this.invoke(forgetAUser, options);
  }

  /**
   * Asks the browser to keep this origin's storage under pressure
   * (`navigator.storage.persist()`); resolves to whether it is persisted.
   * False where the Storage API does not exist (Node).
   */
  persist(): Promise<boolean> {
    return persistStorage();
  }

  /** Bytes used and available to this origin (`navigator.storage.estimate()`), or null outside browsers. */
  storageEstimate(): Promise<{ usage: number; quota: number; persisted: boolean } | null> {
    return estimateStorage();
  }

  /** A versioned JSON Lines export (see `src/portability/export-format.ts`), as a Blob. */
  export(options: ExportOptions = {}): Promise<Blob> {
    return this.invoke(exportMemories, options);
  }

  /** Imports an export; the whole file is validated before anything is written. */
  import(data: Blob | string | ArrayBuffer | Uint8Array): Promise<ImportSummary> {
    return this.invoke(importMemories, data);
  }

  /**
   * A query that stays current (see `LiveQuery`): it re-runs whenever a
   * committed change touches its user, in this tab or another. One of
   * `{ recall: text, options }`, `{ facts: query }`, `{ episodes: query }`,
   * `{ turns: query }`, `{ tasks: { userId, limit } }`, `{ sync: {} }` (sync's status). Recall runs with `touch: false` (a UI
   * watching memories does not make them more recent).
   */
  live(query: { recall: string; options?: RecallOptions }): LiveQuery<RecallHit[]>;
  live(query: { facts: FactListQuery }): LiveQuery<Fact[]>;
  live(query: { episodes: EpisodeListQuery }): LiveQuery<Episode[]>;
  live(query: { tasks: { userId?: string; limit?: number } }): LiveQuery<TaskRecord[]>;
  live(query: { turns: TurnListQuery }): LiveQuery<Turn[]>;
  live(query: { sync: Record<string, never> }): LiveQuery<SyncStatus>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  live(query: LiveQuerySpec): LiveQuery<any> {
    const spec = parseInput(liveQuerySchema, query, 'live');
    if (this.closed) throw new ClosedError('watch a query');
    return liveQueryOf(this, spec);
  }

  /**
   * Subscribes to one kind of event (see `EngramEvent`); returns a function
   * that unsubscribes. `change` events come once per committed write, in this
   * tab or another.
   */
  on<T extends EngramEventType>(type: T, listener: EventListener<T>): () => void {
    return this.emitter.on(type, listener);
  }

  /** Resolves when every call and background job in flight has finished; with \`signal\`, an abort ends the wait (AbortError), not the work. */
  idle(options: CallOptions = {}): Promise<void> {
    return this.invoke(waitForIdle, options);
  }

  /** Stops taking work, waits for in-flight work (up to `timeoutMs`), closes the database. Idempotent. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    const parsed = parseInput(closeOptionsSchema, options, 'close');
    if (this.closed) return;
    this.closed = true;
    await this.sync.stop();
    await this.connection.shutdown(parsed);
    this.emitter.clear();
  }

  /**
   * Diagnostics: the embedder, how many memories are indexed, the bytes
   * their vectors hold in memory (`vectorBytes`: the WebAssembly memory the
   * search scans, spare rows and scratch included), whether this open loaded
   * the index snapshot or read every record, and how many memories it
   * re-read from the write log onto the snapshot (writes the snapshot
   * missed: a tab or process killed before its save).
   */
  info(): Promise<{ name: string; embedder: { id: string; dimension: number }; indexed: number; vectorBytes: number; openedFrom: 'snapshot' | 'records'; replayed: number }> {
    return this.invoke(readInfo);
  }

  /** An operation's call: refused once closed, else validated and forwarded (./forward.ts). */
  private async invoke<O extends AnyOperation>(operation: O, ...given: GivenArgs<O['input']>): Promise<ResultOf<O>> {
    if (this.closed) throw new ClosedError(operation.name);
    return forward(this.connection.engine, operation, given);
  }
}

/**
 * Opens (or creates) a memory. See `MemoryOptions` for every option and its
 * default. (engram's Node build adds `directory`: ./create-memory-node.ts.)
 */
export function createMemory(options: MemoryOptions): Promise<Memory> {
  return Memory.create(options);
}
