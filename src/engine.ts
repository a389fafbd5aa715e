import type { Embedder, ProgressListener } from './embed/embedder.js';
import { loadTransformersEmbedder, type TransformersEmbedderOptions } from './embed/transformers-embedder.js';
import type { EngineContext } from './engine-context.js';
import { ValidationError } from './errors.js';
import { observe, type ObserveResult, type observeInputSchema } from './extract/observe.js';
import type { CaptureOptions, ExtractionOptions, FactOptions } from './schema/extraction-options.js';
import { resolveExtraction, type ResolvedExtraction } from './extract/resolve-extraction.js';
import { writeProfileFields } from './extract/profile-sync.js';
import { EPISODE_JOB, episodeJobHandler } from './extract/stage2.js';
import { FactStore } from './memories/facts/fact-store.js';
import { TurnStore } from './memories/turns/turn-store.js';
import { resolveTurnPolicy } from './memories/turns/turn-policy.js';
import type { TurnOptions } from './schema/turn-options.js';
import type { Turn, TurnInput, TurnListQuery } from './schema/turn.js';
import { CallAborts, raceCallerAbort } from './jobs/call-aborts.js';
import { CallTracker } from './jobs/call-tracker.js';
import { JobQueue } from './jobs/queue.js';
import { closeEpisode, type CloseEpisodeResult, type closeEpisodeOptionsSchema } from './memories/episodes/close-episode.js';
import { EpisodeStore } from './memories/episodes/episode-store.js';
import { prune } from './retention/prune.js';
import { writeEpisode, type EpisodeWriteResult } from './memories/episodes/write-episode.js';
import type { LLMProvider } from './llm/types.js';
import { exportData } from './portability/export.js';
import { forgetUser } from './users/forget-user.js';
import { importData, type ImportSummary } from './portability/import.js';
import { AccessTimes } from './recall/access-times.js';
import { recall, type RecallHit } from './recall/recall.js';
import type { SequenceOptions } from './recall/sequence.js';
import type { Episode, EpisodeInput, EpisodePatch } from './schema/episode.js';
import type { AddManyOptions, AddOptions, Fact, FactInput, FactPatch } from './schema/fact.js';
import { addFactMerging } from './memories/facts/add-fact-merging.js';
import type { EngineSettings } from './schema/options.js';
import { resolveLifecycle } from './memories/episodes/resolve-lifecycle.js';
import { profileOf, type Profile, type ProfileFields } from './schema/profile.js';
import type { EpisodeListQuery, ExportOptions, FactListQuery, RecallOptions } from './schema/query.js';
import type { EmbedderStamp, EventRecord, JobRecord } from './schema/records.js';
import type { ParsedOutcome, PatternRecord, StepRecord, TaskContext, TaskRecord, stepInputSchema, taskStartSchema } from './schema/task.js';
import { buildKeywordsInBackground } from './search/keyword-warmup.js';
import { MemoryIndex } from './search/memory-index.js';
import { ChangeSignal } from './search/persistence/change-signal.js';
import { readSnapshot } from './search/persistence/index-snapshot.js';
import { rebuildIndex } from './search/persistence/rebuild-index.js';
import { SnapshotWriter } from './search/persistence/snapshot-writer.js';
import { resolveRanking } from './search/ranking.js';
import { announcer } from './store/announce.js';
import { createCommit } from './store/commit.js';
import { EngramDatabase } from './store/database.js';
import { toStorageError } from './store/transaction-errors.js';
import { PATTERN_JOB, patternJobHandler, TaskStore, type CompletedTask, type RelevantTask, type TaskStats } from './tasks/task-store.js';
import type { TasksOptions } from './schema/task.js';
import type { EngramEvent } from './telemetry/events.js';
import { deadline } from './timers.js';
import type { PageFileStore } from './search/persistence/page-files.js';
import type * as z from 'zod/mini';

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
  /** Where the index snapshot's page payloads live when the store brings a folder for them (the durable Node store). */
  pageFiles?: PageFileStore;
}

/** The pieces an open engine dispatches to, built by `Engine.open` in dependency order. */
interface EngineParts {
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
  /** Stops building the keyword postings deferred at open (see search/keyword-warmup.ts). */
  stopKeywordWarmup: () => void;
  /** Aborts LLM calls and jobs in flight when the engine closes. */
  closing: AbortController;
  /** The app's AbortSignals of cancellable calls (observe, recall, idle), by call id. */
  aborts: CallAborts;
}

/** A pause in calls this long lets the deferred keyword postings be built (search/keyword-warmup.ts). */
const KEYWORD_BUILD_QUIET_MS = 50;

/**
 * The engine: one per open database, the only writer. The `Memory` facade
 * validates input and forwards here, directly (Node) or through Comlink
 * (browser worker). It dispatches: facts, episodes and conversation turns
 * to memories/, prune to retention/, observed turns to extract/, tasks to tasks/, recall to recall/, export and
 * import to portability/, forget to users/; every write crosses store/commit.ts.
 */
export class Engine {
  private closed = false;

  private constructor(private readonly parts: EngineParts) {}

  static async open(config: EngineConfig, hooks: EngineHooks = {}): Promise<Engine> {
    const db = new EngramDatabase(config.name, { indexedDB: hooks.indexedDB, IDBKeyRange: hooks.IDBKeyRange });
    // Without a snapshot nothing replays the write log, and nothing would empty it.
    db.writeMark.logging = config.indexSnapshot !== false;
    try {
      await db.open();
    } catch (error) {
      throw toStorageError(error, `open database "${config.name}"`);
    }
    // Other engines on this database (tabs) hear of every committed change, and this one of theirs.
    const signal = new ChangeSignal(config.name, hooks.indexedDB);
    // The snapshot's rows are read while the model starts (IndexedDB reads them off this thread meanwhile); the
    // signal above already hears other engines' writes, so none committed after this read is missed.
    const storedSnapshot = config.indexSnapshot === false ? undefined : readSnapshot(db);
    storedSnapshot?.catch(() => undefined); // (an open that fails before using it)
    try {
      const embedder = hooks.embedder ?? (await loadTransformersEmbedder(config.embedder, hooks.onProgress));
      if (!Number.isInteger(embedder.dimension) || embedder.dimension < 1) {
        throw new ValidationError(`The embedder "${embedder.id}" declares an invalid dimension (${embedder.dimension}).`, [
          { path: 'embedder.dimension', message: 'must be a positive integer' },
        ]);
      }
      const emit = (event: EngramEvent) => {
        try {
          hooks.onEvent?.(event);
        } catch {
          // A listener's bug must not break a write that already committed.
        }
      };
      const ctx: EngineContext = {
        db,
        commit: createCommit(db, emit),
        embedder,
        index: new MemoryIndex(embedder.dimension),
        lifecycle: resolveLifecycle(config.lifecycle),
        ranking: resolveRanking(config.ranking),
        now: hooks.clock ?? Date.now,
        emit,
      };
      const extraction = resolveExtraction(config.extraction, config.facts, config.capture);
      const calls = new CallTracker();
      const closing = new AbortController();
      const counters = { processed: 0, extractedInline: 0 };
      const queue = new JobQueue({
        db,
        commit: ctx.commit,
        now: ctx.now,
        maxAttempts: extraction.maxAttempts,
        backoffMs: extraction.retryBackoffMs,
        handlers: {
          [EPISODE_JOB]: episodeJobHandler(ctx, { llm: hooks.llm, options: extraction }),
          [PATTERN_JOB]: patternJobHandler(ctx, counters),
        },
      });
      // The snapshot is saved only while no call or job runs, so it never captures half a write.
      const snapshots =
        config.indexSnapshot === false
          ? null
          : new SnapshotWriter(ctx, {
              isQuiet: (forMs = 0) => calls.quietFor(forMs) && queue.active === 0,
              delayMs: config.indexSnapshot?.saveDelayMs,
              files: hooks.pageFiles,
            });
      const snapshot = snapshots && storedSnapshot ? { pages: snapshots.pages, stored: storedSnapshot } : undefined;
      const { sameSpace, fromSnapshot, replayed } = await rebuildIndex(ctx, hooks.onProgress, snapshot, hooks.pageFiles);
      snapshots?.start();
      const taskIndex = new MemoryIndex(embedder.dimension);
      const tasks = new TaskStore(ctx, taskIndex, config.tasks ?? {}, queue, counters);
      await tasks.rebuild(sameSpace);
      // From here on every committed write reaches both indexes, the app and the other tabs.
      db.changes.start(
        announcer({
          index: ctx.index,
          taskIndex,
          emit: (change) => emit(change),
          publish: (change) => signal.publish(change),
        }),
      );
      signal.listen({
        db,
        dimension: embedder.dimension,
        index: ctx.index,
        taskIndex,
        onRefreshed: (change) => emit({ type: 'change', ...change }),
      });
      const engine = new Engine({
        ctx,
        calls,
        llm: hooks.llm,
        extraction,
        facts: new FactStore(ctx),
        turns: new TurnStore(ctx, resolveTurnPolicy(config.turns)),
        episodes: new EpisodeStore(ctx),
        tasks,
        queue,
        access: new AccessTimes(ctx, (work) => calls.track(work)),
        signal,
        snapshots,
        openedFrom: fromSnapshot ? 'snapshot' : 'records',
        replayed,
        // Queries read unbuilt postings as they are: building them waits while calls keep coming.
        stopKeywordWarmup: buildKeywordsInBackground(ctx.index, () => calls.quietFor(KEYWORD_BUILD_QUIET_MS)),
        closing,
        aborts: new CallAborts(),
      });
      // Resume background jobs a previous session left queued.
      await queue.resume();
      return engine;
    } catch (error) {
      db.changes.stop();
      signal.close();
      db.close();
      throw error;
    }
  }

  // ---------- episodes ----------

  addEpisode(input: EpisodeInput): Promise<EpisodeWriteResult> {
    return this.run('add an episode', () => writeEpisode(this.parts.ctx, input));
  }

  getEpisode(id: string): Promise<Episode> {
    return this.run('get an episode', () => this.parts.episodes.get(id));
  }

  listEpisodes(query: EpisodeListQuery): Promise<Episode[]> {
    return this.run('list episodes', () => this.parts.episodes.list(query));
  }

  updateEpisode(id: string, patch: EpisodePatch): Promise<Episode> {
    return this.run('update an episode', () => this.parts.episodes.update(id, patch));
  }

  /** Closes an active episode (→ summarized), extracting its structured metadata when a provider is configured (see memories/episodes/close-episode.ts). */
  closeEpisode(id: string, options: z.output<typeof closeEpisodeOptionsSchema> = {}): Promise<CloseEpisodeResult> {
    const { ctx, llm, extraction, closing } = this.parts;
    return this.run('close an episode', () => closeEpisode(ctx, { llm, model: extraction.model, timeoutMs: extraction.timeoutMs, signal: closing.signal }, id, options));
  }

  deleteEpisode(id: string): Promise<void> {
    return this.run('delete an episode', () => this.parts.episodes.delete(id));
  }

  /** The arc this episode belongs to: ancestors root-first, the episode, then its descendants by start time. */
  chain(id: string): Promise<Episode[]> {
    return this.run('read a chain', () => this.parts.episodes.chain(id));
  }

  children(id: string): Promise<Episode[]> {
    return this.run('list children', () => this.parts.episodes.children(id));
  }

  /** Chronological replay of a topic (see recall/sequence.ts). */
  sequence(topic: string, options: SequenceOptions = {}): Promise<Episode[]> {
    return this.run('replay a topic', () => this.parts.episodes.sequence(topic, options));
  }

  // ---------- facts ----------

  /** One fact, merged with a near-identical current one unless `merge: false` (see memories/facts/add-fact-merging.ts). */
  addFact(input: FactInput, options: AddOptions = {}): Promise<Fact> {
    return this.run('add a fact', async () => (await this.addFactsNow([input], 'facts.add', options.merge ?? true))[0]!);
  }

  /** Many facts at once: one embedding batch and one commit (all or nothing) unless `merge: true`; ids instead of records with `returnRecords: false`. */
  addFacts(inputs: FactInput[], options: AddManyOptions = {}): Promise<Fact[] | string[]> {
    return this.run('add facts', async () => {
      const records = await this.addFactsNow(inputs, 'facts.addMany', options.merge ?? false);
      return options.returnRecords === false ? records.map((r) => r.id) : records;
    });
  }

  getFact(id: string): Promise<Fact> {
    return this.run('get a fact', () => this.parts.facts.get(id));
  }

  listFacts(query: FactListQuery): Promise<Fact[]> {
    return this.run('list facts', () => this.parts.facts.list(query));
  }

  updateFact(id: string, patch: FactPatch): Promise<Fact> {
    return this.run('update a fact', () => this.parts.facts.update(id, patch));
  }

  deleteFact(id: string): Promise<void> {
    return this.run('delete a fact', () => this.parts.facts.delete(id));
  }

  /** Every version of a fact, oldest first. */
  factHistory(id: string): Promise<Fact[]> {
    return this.run('read fact history', () => this.parts.facts.history(id));
  }

  // ---------- turns ----------

  addTurns(inputs: TurnInput[], call: 'turns.add' | 'turns.addMany' = 'turns.addMany'): Promise<Turn[]> {
    return this.run('add turns', () => this.parts.turns.add(inputs, call));
  }

  getTurn(id: string): Promise<Turn> {
    return this.run('get a turn', () => this.parts.turns.get(id));
  }

  listTurns(query: TurnListQuery): Promise<Turn[]> {
    return this.run('list turns', () => this.parts.turns.list(query));
  }

  deleteTurn(id: string): Promise<void> {
    return this.run('delete a turn', () => this.parts.turns.delete(id));
  }

  // ---------- conversation ----------

  /**
   * One conversation turn through the two-stage pipeline (see extract/observe.ts).
   * `callId` names the call for `abortCall` (the facade's `signal` option).
   */
  observe(input: z.output<typeof observeInputSchema>, callId?: string): Promise<ObserveResult> {
    const { ctx, llm, extraction, queue, closing, aborts, turns } = this.parts;
    return this.run('observe', () =>
      aborts.with(callId, (caller) => {
        // The LLM calls stop on either signal; only the caller's turns into an AbortError (a closing engine's does not).
        const signal = caller ? AbortSignal.any([closing.signal, caller]) : closing.signal;
        return observe(ctx, { llm, options: extraction, queue, signal, caller, turns }, input);
      }),
    );
  }

  /** Aborts the cancellable call named `callId` (see `observe`, `recall`, `idle`); a call already settled is not affected. */
  abortCall(callId: string, reason: string): void {
    this.parts.aborts.abort(callId, reason);
  }

  // ---------- agent task episodes ----------

  startTask(input: z.output<typeof taskStartSchema>): Promise<TaskRecord> {
    return this.run('start a task', () => this.parts.tasks.start(input));
  }

  appendSteps(taskId: string, steps: z.output<typeof stepInputSchema>[]): Promise<number> {
    return this.run('record steps', () => this.parts.tasks.appendSteps(taskId, steps));
  }

  completeTask(taskId: string, outcome: ParsedOutcome): Promise<CompletedTask> {
    return this.run('complete a task', () => this.parts.tasks.complete(taskId, outcome));
  }

  getTask(taskId: string): Promise<TaskRecord & { steps: StepRecord[] }> {
    return this.run('get a task', () => this.parts.tasks.get(taskId));
  }

  relevantTasks(query: { description: string; context: Partial<TaskContext> }, options: { k: number; userId: string }): Promise<RelevantTask[]> {
    return this.run('find relevant tasks', () => this.parts.tasks.relevant(query, options));
  }

  relevantPatterns(context: Partial<TaskContext>, options: { k: number; userId: string }): Promise<PatternRecord[]> {
    return this.run('find relevant patterns', () => this.parts.tasks.relevantPatterns(context, options));
  }

  taskStats(userId?: string): Promise<TaskStats> {
    return this.run('read task stats', () => this.parts.tasks.stats(userId));
  }

  /** Tasks of a user, newest first (for the inspector). */
  listTasks(userId: string, limit = 100): Promise<TaskRecord[]> {
    return this.run('list tasks', () => this.parts.tasks.list(userId, limit));
  }

  // ---------- profile ----------

  getProfile(userId: string): Promise<Profile> {
    return this.run('read a profile', async () => {
      const row = await this.parts.ctx.db.profiles.get(userId);
      return profileOf(userId, row?.fields, row?.updatedAt ?? null);
    });
  }

  updateProfile(userId: string, patch: ProfileFields): Promise<Profile> {
    const { ctx } = this.parts;
    return this.run('update a profile', async () => {
      const record = await ctx.commit('update a profile', ['profiles'], () => writeProfileFields(ctx, userId, patch));
      return profileOf(userId, record.fields, record.updatedAt);
    });
  }

  /** Background work waiting or running, and the recorded events (newest first), for the inspector. */
  activity(options: { limit?: number } = {}): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> {
    const { db } = this.parts.ctx;
    return this.run('read activity', async () => ({
      jobs: await db.jobs.toArray(),
      events: await db.events.orderBy('seq').reverse().limit(options.limit ?? 100).toArray(),
    }));
  }

  // ---------- recall, lifecycle, portability ----------

  recall(query: string, options: RecallOptions = {}, callId?: string): Promise<RecallHit[]> {
    const { ctx, access, calls, aborts } = this.parts;
    // Back-to-back recalls do not wait for each other's access-time write: it is gathered into one (recall/access-times.ts).
    return calls.run('recall', () =>
      aborts.with(callId, (caller) => {
        // An aborted recall answers at once, but its work still runs to the end: idle() and close() wait for it.
        const work = calls.track(recall(ctx, access, query, options, caller));
        return raceCallerAbort(caller, 'recall', work);
      }),
    );
  }

  /** Applies TTL then the count cap now, for one user or all; returns the evicted ids. */
  prune(options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
    return this.run('prune', () => prune(this.parts.ctx, this.parts.turns.policy, options));
  }

  /** Deletes everything stored for one user. */
  forgetUser(userId: string): Promise<{ episodes: number; facts: number; turns: number }> {
    return this.run('forget a user', () => forgetUser(this.parts.ctx, userId));
  }

  exportData(options: ExportOptions = {}): Promise<string> {
    return this.run('export', () => exportData(this.parts.ctx, options));
  }

  /** Imports an export: validated whole before anything is written (see portability/import.ts). */
  importData(text: string): Promise<ImportSummary> {
    return this.run('import', () => importData(this.parts.ctx, text));
  }

  // ---------- shutdown ----------

  /** Resolves when no call is in flight and the background queue is drained; an aborted wait rejects, the work goes on. */
  idle(callId?: string): Promise<void> {
    const { calls, queue, aborts, access } = this.parts;
    // Pending access times are written now, not when their timer fires.
    void access.settle();
    const drained = async () => {
      do {
        while (calls.size > 0) await calls.settled();
        await queue.idle();
      } while (calls.size > 0 || queue.pending > 0);
    };
    return aborts.with(callId, (caller) => raceCallerAbort(caller, 'idle', drained()));
  }

  /** Stops taking work, lets in-flight calls finish (up to `timeoutMs`), then closes the database. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { ctx, calls, queue, snapshots, signal, closing } = this.parts;
    calls.stop();
    // Pending access times are written now (the write is tracked: the wait for calls below includes it).
    void this.parts.access.settle();
    const timeoutMs = options.timeoutMs ?? 10_000;
    // In-flight jobs are cancelled (they stay queued, and emit no event); calls get until the deadline.
    closing.abort(new Error('engram is closing'));
    this.parts.stopKeywordWarmup();
    await queue.close(timeoutMs);
    const limit = deadline(timeoutMs);
    try {
      await Promise.race([calls.settled(), limit.reached]);
      // The index snapshot makes the next open fast; past the deadline, closing the database abandons it (a cache).
      if (snapshots) await Promise.race([snapshots.flush(), limit.reached]);
      await Promise.race([snapshots?.stop(), limit.reached]);
    } finally {
      limit.cancel();
    }
    ctx.db.changes.stop();
    signal.close();
    ctx.db.close();
    await ctx.embedder.dispose?.();
  }

  /** Embedder identity, index size and memory, for diagnostics and the inspector. */
  info(): { name: string; embedder: EmbedderStamp; indexed: number; vectorBytes: number; openedFrom: 'snapshot' | 'records'; replayed: number } {
    const { ctx, openedFrom, replayed } = this.parts;
    return {
      name: ctx.db.name,
      embedder: { id: ctx.embedder.id, dimension: ctx.embedder.dimension },
      indexed: ctx.index.size,
      vectorBytes: ctx.index.vectorBytes,
      openedFrom,
      replayed,
    };
  }

  /** Adds facts raw in one commit, or (`merge`) each merged like an extracted fact where it is the same as a stored one. */
  private async addFactsNow(inputs: FactInput[], call: 'facts.add' | 'facts.addMany', merge: boolean): Promise<Fact[]> {
    const { ctx, llm, extraction, facts, closing } = this.parts;
    if (!merge) return facts.add(inputs, call);
    const out: Fact[] = [];
    for (const input of inputs) {
      // An id the app chose means "write it under this id": never merged away.
      const result = input.id === undefined ? await addFactMerging(ctx, { llm, options: extraction, signal: closing.signal }, input) : null;
      if (result?.merged) out.push(result.merged);
      else out.push(...(await facts.add([result ? { ...input, embedding: result.vector } : input], call)));
    }
    return out;
  }

  /** A public call: refused once closed, tracked until it settles, and run after the pending access-time write. */
  private run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    return this.parts.calls.run(operation, async () => {
      await this.parts.access.settle();
      return body();
    });
  }
}

export type { RecallHit, MemoryRecord } from './recall/recall.js';
export type { ImportSummary } from './portability/import.js';
