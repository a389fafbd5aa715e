import type { Table } from 'dexie';
import type { Embedder, ProgressListener } from './embed/embedder.js';
import { embedTexts } from './embed/embed-texts.js';
import { vectorsFor } from './embed/provided-embeddings.js';
import { loadTransformersEmbedder, type TransformersEmbedderOptions } from './embed/transformers-embedder.js';
import type { EngineContext } from './engine-context.js';
import { ClosedError, NotFoundError, ValidationError } from './errors.js';
import { chainOf } from './lifecycle/chaining.js';
import { deleteEpisodesInTx, selectEvictions } from './lifecycle/eviction.js';
import { writeEpisode, type EpisodeWriteResult } from './lifecycle/write-episode.js';
import { closeEpisode, type CloseEpisodeResult, type closeEpisodeOptionsSchema } from './lifecycle/close-episode.js';
import { DEFAULT_USER_ID, type MemoryType } from './schema/common.js';
import { episodeIndexText, type Episode, type EpisodeInput, type EpisodePatch } from './schema/episode.js';
import type { AddManyOptions, Fact, FactInput, FactPatch } from './schema/fact.js';
import { resolveLifecycle, type EngineSettings } from './schema/options.js';
import { toEpochMs, type EpisodeListQuery, type ExportOptions, type FactListQuery, type RecallOptions } from './schema/query.js';
import { indexDocOf } from './search/index-doc.js';
import { orderSequence, type SequenceOptions } from './recall/sequence.js';
import { MemoryIndex } from './search/memory-index.js';
import { resolveRanking, type ScoreParts } from './search/ranking.js';
import { applyDeleted, applyWritten } from './store/apply-to-index.js';
import { ChangeSignal } from './store/change-signal.js';
import { EngramDatabase } from './store/database.js';
import { EXPORT_FORMAT, EXPORT_VERSION, parseExport, serializeExport } from './store/export-format.js';
import { listEpisodes, listFacts } from './store/list-records.js';
import { EMBEDDER_META_KEY, type EmbedderStamp } from './schema/records.js';
import { rebuildIndex } from './store/rebuild-index.js';
import { SnapshotWriter } from './store/snapshot-writer.js';
import { buildKeywordsInBackground } from './search/keyword-warmup.js';
import { toStorageError } from './store/transaction-errors.js';
import { buildFact } from './store/write-fact.js';
import { deadline } from './timers.js';
import { deleteVectors, putVectors, unpackBlocks } from './store/vector-blocks.js';
import type { EngramEvent } from './telemetry/events.js';
import { JobQueue } from './jobs/queue.js';
import type { LLMProvider } from './llm/types.js';
import { observe, type ObserveResult, type observeInputSchema } from './extract/observe.js';
import { resolveExtraction, type CaptureOptions, type ExtractionOptions, type FactOptions, type ResolvedExtraction } from './extract/options.js';
import { EPISODE_JOB, episodeJobHandler } from './extract/stage2.js';
import { profileOf, type Profile, type ProfileFields } from './schema/profile.js';
import type { EventRecord, JobRecord } from './schema/records.js';
import type { z } from 'zod';
import { PATTERN_JOB, TaskStore, taskDoc, type CompletedTask, type RelevantTask, type TaskStats, type TasksOptions } from './tasks/task-store.js';
import type { ParsedOutcome, PatternRecord, StepRecord, TaskContext, TaskRecord, stepInputSchema, taskStartSchema } from './schema/task.js';

type ObserveParsed = z.output<typeof observeInputSchema>;

export type MemoryRecord = Episode | Fact;

const STATE_ORDER: readonly Episode['state'][] = ['active', 'summarized', 'archived'];

export interface RecallHit<M extends MemoryRecord = MemoryRecord> {
  memory: M;
  score: number;
  parts: ScoreParts;
}

export interface ImportSummary {
  episodes: number;
  facts: number;
  profiles: number;
  tasks: number;
  reembedded: number;
}

/** Plain-data configuration; identical whether the engine runs in-process or in a worker. */
export interface EngineConfig extends EngineSettings {
  embedder?: TransformersEmbedderOptions;
  extraction?: ExtractionOptions;
  facts?: FactOptions;
  capture?: CaptureOptions;
  tasks?: TasksOptions;
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
}

/**
 * The engine: one per open database. It owns the store, the embedder and the
 * in-memory index, and is the only writer. The `Memory` facade validates
 * input and forwards here, directly (Node) or through Comlink (browser worker).
 */
export class Engine {
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  private readonly queue: JobQueue;
  private readonly closing = new AbortController();
  private readonly tasks: TaskStore;
  /** Completed tasks' description vectors, behind `tasks.relevant`. */
  private readonly taskIndex: MemoryIndex;
  /** The cross-tab change signal (see store/change-signal.ts); set once the indexes are built. */
  private signal: ChangeSignal | null = null;
  /** Saves the index snapshot that makes the next open fast (see store/snapshot-writer.ts); set once the index is built. */
  private snapshots: SnapshotWriter | null = null;
  /** Where the index came from at open: the persisted snapshot, or every record (first open, or the snapshot was stale). */
  private openedFrom: 'snapshot' | 'records' = 'records';
  /** Stops building the keyword postings deferred at open (see search/keyword-warmup.ts). */
  private stopKeywordWarmup: () => void = () => undefined;

  private constructor(
    private readonly ctx: EngineContext,
    private readonly llm: LLMProvider | undefined,
    private readonly extraction: ResolvedExtraction,
    tasksOptions: TasksOptions,
  ) {
    this.taskIndex = new MemoryIndex(ctx.embedder.dimension);
    this.tasks = new TaskStore(ctx, this.taskIndex, tasksOptions, () => this.queue);
    this.queue = new JobQueue({
      db: ctx.db,
      now: ctx.now,
      emit: ctx.emit,
      maxAttempts: extraction.maxAttempts,
      backoffMs: extraction.retryBackoffMs,
      handlers: {
        [EPISODE_JOB]: episodeJobHandler(ctx, { llm: () => this.llm, options: extraction }),
        [PATTERN_JOB]: this.tasks.patternJob(),
      },
    });
  }

  static async open(config: EngineConfig, hooks: EngineHooks = {}): Promise<Engine> {
    const db = new EngramDatabase(config.name, { indexedDB: hooks.indexedDB, IDBKeyRange: hooks.IDBKeyRange });
    try {
      await db.open();
    } catch (error) {
      throw toStorageError(error, `open database "${config.name}"`);
    }
    // Other engines on this database (tabs) hear of every committed change, and this one of theirs.
    const signal = new ChangeSignal(config.name, hooks.indexedDB);
    try {
      const embedder = hooks.embedder ?? (await loadTransformersEmbedder(config.embedder, hooks.onProgress));
      if (!Number.isInteger(embedder.dimension) || embedder.dimension < 1) {
        throw new ValidationError(`The embedder "${embedder.id}" declares an invalid dimension (${embedder.dimension}).`, [
          { path: 'embedder.dimension', message: 'must be a positive integer' },
        ]);
      }
      const onEvent = hooks.onEvent;
      const ctx: EngineContext = {
        db,
        embedder,
        index: new MemoryIndex(embedder.dimension),
        lifecycle: resolveLifecycle(config.lifecycle),
        ranking: resolveRanking(config.ranking),
        now: hooks.clock ?? Date.now,
        emit: (event) => {
          if (event.type === 'change') signal.publish(event);
          try {
            onEvent?.(event);
          } catch {
            // A listener's bug must not break a write that already committed.
          }
        },
      };
      let engine: Engine | undefined;
      const snapshots =
        config.indexSnapshot === false
          ? null
          : new SnapshotWriter(ctx, { isQuiet: () => !!engine && engine.isQuiet(), delayMs: config.indexSnapshot?.saveDelayMs });
      const { sameSpace, fromSnapshot } = await rebuildIndex(ctx, hooks.onProgress, snapshots?.blocks);
      engine = new Engine(ctx, hooks.llm, resolveExtraction(config.extraction, config.facts, config.capture), config.tasks ?? {});
      engine.openedFrom = fromSnapshot ? 'snapshot' : 'records';
      engine.snapshots = snapshots;
      snapshots?.start();
      engine.stopKeywordWarmup = buildKeywordsInBackground(ctx.index);
      await engine.tasks.rebuild(sameSpace);
      engine.signal = signal;
      signal.listen({
        ctx,
        taskIndex: engine.taskIndex,
        taskDoc,
        onRefreshed: ({ written, deleted }) => {
          try {
            onEvent?.({ type: 'change', written, deleted });
          } catch {
            // As above: a listener's bug is the app's, not the refresh's.
          }
        },
      });
      // Resume background jobs a previous session left queued.
      await engine.queue.resume();
      return engine;
    } catch (error) {
      signal.close();
      db.close();
      throw error;
    }
  }

  // ---------- episodes ----------

  addEpisode(input: EpisodeInput): Promise<EpisodeWriteResult> {
    return this.run('add an episode', () => writeEpisode(this.ctx, input));
  }

  getEpisode(id: string): Promise<Episode> {
    return this.run('get an episode', async () => this.mustGet('episode', id));
  }

  listEpisodes(query: EpisodeListQuery): Promise<Episode[]> {
    return this.run('list episodes', () => listEpisodes(this.ctx.db, query));
  }

  updateEpisode(id: string, patch: EpisodePatch): Promise<Episode> {
    return this.run('update an episode', async () => {
      const current = await this.mustGet('episode', id);
      const merged = { ...current, ...patch } as Episode;
      const textChanged = patch.text !== undefined || patch.goal !== undefined || patch.context !== undefined;
      merged.text = patch.text ?? (textChanged ? episodeIndexText({ goal: merged.goal, context: merged.context }) : current.text);
      if (!merged.text.trim()) {
        throw new ValidationError('An episode needs a non-empty text (or goal).', [{ path: 'text', message: 'would be empty' }]);
      }
      if (merged.parentId === id) throw new ValidationError('An episode cannot be its own parent.', [{ path: 'parentId', message: 'equals the episode id' }]);
      if (STATE_ORDER.indexOf(merged.state) < STATE_ORDER.indexOf(current.state)) {
        throw new ValidationError(`An episode's state only moves forward (active → summarized → archived); it is "${current.state}".`, [
          { path: 'state', message: `cannot go back to "${merged.state}"` },
        ]);
      }
      merged.updatedAt = this.ctx.now();
      const vector = merged.text !== current.text ? (await embedTexts(this.ctx, [merged.text]))[0] : undefined;
      await this.transact('update an episode', [this.ctx.db.episodes, this.ctx.db.vectorBlocks], async () => {
        if (!(await this.ctx.db.episodes.get(id))) throw new NotFoundError('episode', id);
        if (merged.parentId) {
          const parent = await this.ctx.db.episodes.get(merged.parentId);
          if (!parent) throw new NotFoundError('episode', merged.parentId);
          if ((await chainOf((pid) => this.ctx.db.episodes.get(pid), parent)).some((e) => e.id === id)) {
            throw new ValidationError('That parent would make the chain a cycle.', [{ path: 'parentId', message: 'is a descendant of this episode' }]);
          }
        }
        await this.ctx.db.episodes.put(merged);
        if (vector) await putVectors(this.ctx.db, [{ id, userId: merged.userId, kind: 'episode', vector }]);
      });
      applyWritten(this.ctx, [{ record: merged, vector }]);
      this.ctx.emit({ type: 'change', written: [id], deleted: [] });
      return merged;
    });
  }

  /** Closes an active episode (→ summarized), extracting its structured metadata when a provider is configured (see lifecycle/close-episode.ts). */
  closeEpisode(id: string, options: z.output<typeof closeEpisodeOptionsSchema> = {}): Promise<CloseEpisodeResult> {
    return this.run('close an episode', () =>
      closeEpisode(this.ctx, { llm: this.llm, model: this.extraction.model, timeoutMs: this.extraction.timeoutMs, signal: this.closing.signal }, id, options),
    );
  }

  deleteEpisode(id: string): Promise<void> {
    return this.run('delete an episode', async () => {
      await this.transact('delete an episode', [this.ctx.db.episodes, this.ctx.db.vectorBlocks], async () => {
        if (!(await this.ctx.db.episodes.get(id))) throw new NotFoundError('episode', id);
        await deleteEpisodesInTx(this.ctx.db, [id]);
      });
      applyDeleted(this.ctx, [id]);
      this.ctx.emit({ type: 'change', written: [], deleted: [id] });
    });
  }

  /** The arc this episode belongs to: ancestors root-first, the episode, then its descendants by start time. */
  chain(id: string): Promise<Episode[]> {
    return this.run('read a chain', async () => {
      const start = await this.mustGet('episode', id);
      const get = (pid: string) => this.ctx.db.episodes.get(pid);
      const ancestors = await chainOf(get, start);
      const seen = new Set(ancestors.map((e) => e.id));
      const descendants: Episode[] = [];
      let frontier = [start.id];
      while (frontier.length) {
        const next = (await this.ctx.db.episodes.where('parentId').anyOf(frontier).toArray()).filter((e) => !seen.has(e.id));
        next.forEach((e) => seen.add(e.id));
        descendants.push(...next.sort((a, b) => a.startedAt - b.startedAt));
        frontier = next.map((e) => e.id);
      }
      return [...ancestors, ...descendants];
    });
  }

  children(id: string): Promise<Episode[]> {
    return this.run('list children', async () => {
      await this.mustGet('episode', id);
      const kids = await this.ctx.db.episodes.where('parentId').equals(id).toArray();
      return kids.sort((a, b) => a.startedAt - b.startedAt);
    });
  }

  /** Chronological replay of a topic (see recall/sequence.ts). */
  sequence(topic: string, options: SequenceOptions = {}): Promise<Episode[]> {
    return this.run('replay a topic', async () => {
      const limit = options.limit ?? 10;
      const [vector] = await embedTexts(this.ctx, [topic]);
      const hits = this.ctx.index.search(options.userId ?? DEFAULT_USER_ID, { vector: vector!, text: topic }, {
        k: 2 * limit,
        types: ['episode'],
        includeArchived: options.includeArchived,
        ranking: this.ctx.ranking,
        now: this.ctx.now(),
      });
      const records = await this.fetchRecords(hits.map((h) => ({ id: h.id, kind: h.kind })));
      const candidates = hits.flatMap((hit, i) => {
        const episode = records[i];
        return episode?.type === 'episode' ? [{ episode, similarity: hit.parts.similarity }] : [];
      });
      return orderSequence(candidates, limit, options.minRelevance ?? 0.5);
    });
  }

  // ---------- facts ----------

  addFact(input: FactInput): Promise<Fact> {
    return this.run('add a fact', async () => (await this.writeFacts([input], 'facts.add'))[0]!);
  }

  /**
   * Many facts at once: one embedding batch and one transaction (all or
   * nothing). With `returnRecords: false` it resolves to the ids, in input
   * order, instead of the records.
   */
  addFacts(inputs: FactInput[], options: AddManyOptions = {}): Promise<Fact[] | string[]> {
    return this.run('add facts', async () => {
      const records = await this.writeFacts(inputs, 'facts.addMany');
      return options.returnRecords === false ? records.map((r) => r.id) : records;
    });
  }

  getFact(id: string): Promise<Fact> {
    return this.run('get a fact', async () => this.mustGet('fact', id));
  }

  listFacts(query: FactListQuery): Promise<Fact[]> {
    return this.run('list facts', () => listFacts(this.ctx.db, query));
  }

  updateFact(id: string, patch: FactPatch): Promise<Fact> {
    return this.run('update a fact', async () => {
      const current = await this.mustGet('fact', id);
      const merged: Fact = { ...current, ...patch, updatedAt: this.ctx.now() };
      const vector = merged.text !== current.text ? (await embedTexts(this.ctx, [merged.text]))[0] : undefined;
      await this.transact('update a fact', [this.ctx.db.facts, this.ctx.db.vectorBlocks], async () => {
        if (!(await this.ctx.db.facts.get(id))) throw new NotFoundError('fact', id);
        await this.ctx.db.facts.put(merged);
        if (vector) await putVectors(this.ctx.db, [{ id, userId: merged.userId, kind: 'fact', vector }]);
      });
      applyWritten(this.ctx, [{ record: merged, vector }]);
      this.ctx.emit({ type: 'change', written: [id], deleted: [] });
      return merged;
    });
  }

  deleteFact(id: string): Promise<void> {
    return this.run('delete a fact', async () => {
      await this.transact('delete a fact', [this.ctx.db.facts, this.ctx.db.vectorBlocks], async () => {
        if (!(await this.ctx.db.facts.get(id))) throw new NotFoundError('fact', id);
        await this.ctx.db.facts.delete(id);
        await deleteVectors(this.ctx.db, [id]);
      });
      applyDeleted(this.ctx, [id]);
      this.ctx.emit({ type: 'change', written: [], deleted: [id] });
    });
  }

  /** Every version of a fact, oldest first: retired versions with `validUntil` and `supersededBy`, then the current one. */
  factHistory(id: string): Promise<Fact[]> {
    return this.run('read fact history', async () => {
      const start = await this.mustGet('fact', id);
      const seen = new Map<string, Fact>([[start.id, start]]);
      // Forward: what replaced it; backward: what it replaced.
      let current: Fact | undefined = start;
      while (current?.supersededBy && !seen.has(current.supersededBy)) {
        current = await this.ctx.db.facts.get(current.supersededBy);
        if (current) seen.set(current.id, current);
      }
      let frontier = [...seen.keys()];
      while (frontier.length) {
        const older = (await this.ctx.db.facts.where('supersededBy').anyOf(frontier).toArray()).filter((f) => !seen.has(f.id));
        older.forEach((f) => seen.set(f.id, f));
        frontier = older.map((f) => f.id);
      }
      return [...seen.values()].sort((a, b) => a.validFrom - b.validFrom || (a.validUntil ?? Infinity) - (b.validUntil ?? Infinity));
    });
  }

  // ---------- conversation ----------

  /** One conversation turn through the two-stage pipeline (see extract/observe.ts). */
  observe(input: ObserveParsed): Promise<ObserveResult> {
    return this.run('observe', () => observe(this.ctx, { llm: this.llm, options: this.extraction, queue: this.queue, signal: this.closing.signal }, input));
  }

  // ---------- agent task episodes ----------

  startTask(input: z.output<typeof taskStartSchema>): Promise<TaskRecord> {
    return this.run('start a task', () => this.tasks.start(input));
  }

  appendSteps(taskId: string, steps: z.output<typeof stepInputSchema>[]): Promise<number> {
    return this.run('record steps', () => this.tasks.appendSteps(taskId, steps));
  }

  completeTask(taskId: string, outcome: ParsedOutcome): Promise<CompletedTask> {
    return this.run('complete a task', async () => {
      const done = await this.tasks.complete(taskId, outcome);
      this.signal?.publish({ written: [taskId], deleted: [] });
      return done;
    });
  }

  getTask(taskId: string): Promise<TaskRecord & { steps: StepRecord[] }> {
    return this.run('get a task', () => this.tasks.get(taskId));
  }

  relevantTasks(query: { description: string; context: Partial<TaskContext> }, options: { k: number; userId: string }): Promise<RelevantTask[]> {
    return this.run('find relevant tasks', () => this.tasks.relevant(query, options));
  }

  relevantPatterns(context: Partial<TaskContext>, options: { k: number; userId: string }): Promise<PatternRecord[]> {
    return this.run('find relevant patterns', () => this.tasks.relevantPatterns(context, options));
  }

  taskStats(userId?: string): Promise<TaskStats> {
    return this.run('read task stats', () => this.tasks.stats(userId));
  }

  /** Tasks of a user, newest first (for the inspector). */
  listTasks(userId: string, limit = 100): Promise<TaskRecord[]> {
    return this.run('list tasks', async () => (await this.ctx.db.tasks.where('userId').equals(userId).toArray()).sort((a, b) => b.startedAt - a.startedAt).slice(0, limit));
  }

  // ---------- profile ----------

  getProfile(userId: string): Promise<Profile> {
    return this.run('read a profile', async () => {
      const row = await this.ctx.db.profiles.get(userId);
      return profileOf(userId, row?.fields, row?.updatedAt ?? null);
    });
  }

  updateProfile(userId: string, patch: ProfileFields): Promise<Profile> {
    return this.run('update a profile', async () => {
      const updated = await this.transact('update a profile', [this.ctx.db.profiles], async () => {
        const row = await this.ctx.db.profiles.get(userId);
        const fields = { ...(row?.fields ?? {}), ...patch };
        const record = { userId, fields, updatedAt: this.ctx.now() };
        await this.ctx.db.profiles.put(record);
        return record;
      });
      return profileOf(userId, updated.fields, updated.updatedAt);
    });
  }

  /** Background work waiting or running, and the recorded events (newest first), for the inspector. */
  activity(options: { limit?: number } = {}): Promise<{ jobs: JobRecord[]; events: EventRecord[] }> {
    return this.run('read activity', async () => ({
      jobs: await this.ctx.db.jobs.toArray(),
      events: await this.ctx.db.events.orderBy('seq').reverse().limit(options.limit ?? 100).toArray(),
    }));
  }

  // ---------- recall ----------

  recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    return this.run('recall', async () => {
      const [vector] = await vectorsFor(this.ctx, [{ text: query, embedding: options.embedding }], { call: 'recall', path: () => 'embedding' });
      const hits = this.ctx.index.search(options.userId ?? DEFAULT_USER_ID, { vector: vector!, text: query }, {
        k: options.k ?? 10,
        types: options.types,
        tags: options.tags,
        since: toEpochMs(options.since),
        until: toEpochMs(options.until),
        filter: options.filter,
        includeArchived: options.includeArchived,
        ranking: this.ctx.ranking,
        now: this.ctx.now(),
      });
      const records = await this.fetchRecords(hits.map((h) => ({ id: h.id, kind: h.kind })));
      const out: RecallHit[] = [];
      hits.forEach((hit, i) => {
        const memory = records[i];
        // A record deleted by another tab since the index saw it is simply skipped.
        if (memory) out.push({ memory, score: hit.score, parts: hit.parts });
      });
      if (options.touch !== false) this.touch(out.map((h) => h.memory));
      return out;
    });
  }

  // ---------- lifecycle ----------

  /** Applies TTL then the count cap now, for one user or all; returns the evicted ids. */
  prune(options: { userId?: string } = {}): Promise<{ evicted: string[] }> {
    return this.run('prune', async () => {
      const now = this.ctx.now();
      const users = options.userId !== undefined ? [options.userId] : await this.allUserIds();
      const evicted: string[] = [];
      for (const userId of users) {
        const result = await this.transact('prune', [this.ctx.db.episodes, this.ctx.db.vectorBlocks, this.ctx.db.events], async () => {
          const { ttl, cap } = await selectEvictions(this.ctx.db, userId, { ttlDays: this.ctx.lifecycle.ttlDays, maxEpisodes: this.ctx.lifecycle.maxEpisodes, now });
          await deleteEpisodesInTx(this.ctx.db, [...ttl, ...cap]);
          for (const [reason, ids] of [['ttl', ttl], ['cap', cap]] as const) {
            if (ids.length) await this.ctx.db.events.add({ type: 'eviction', userId, at: now, data: { evicted: ids, reason } });
          }
          return { ttl, cap };
        });
        const ids = [...result.ttl, ...result.cap];
        applyDeleted(this.ctx, ids);
        if (result.ttl.length) this.ctx.emit({ type: 'eviction', userId, evicted: result.ttl, reason: 'ttl' });
        if (result.cap.length) this.ctx.emit({ type: 'eviction', userId, evicted: result.cap, reason: 'cap' });
        evicted.push(...ids);
      }
      if (evicted.length) this.ctx.emit({ type: 'change', written: [], deleted: evicted });
      return { evicted };
    });
  }

  /** Deletes everything stored for one user: episodes, facts, vectors, profile, queued jobs. */
  forgetUser(userId: string): Promise<{ episodes: number; facts: number }> {
    return this.run('forget a user', async () => {
      const { db } = this.ctx;
      const removed = await this.transact('forget a user', [db.episodes, db.facts, db.vectorBlocks, db.profiles, db.jobs, db.meta, db.tasks, db.steps, db.patterns], async () => {
        const tasks = await db.tasks.where('userId').equals(userId).primaryKeys();
        await db.steps.where('taskId').anyOf(tasks).delete();
        await db.tasks.bulkDelete(tasks);
        await db.patterns.where('userId').equals(userId).delete();
        const episodes = await db.episodes.where('userId').equals(userId).primaryKeys();
        const facts = await db.facts.where('userId').equals(userId).primaryKeys();
        await db.episodes.bulkDelete(episodes);
        await db.facts.bulkDelete(facts);
        await db.vectorBlocks.where('userId').equals(userId).delete();
        await db.profiles.delete(userId);
        await db.jobs.where('userId').equals(userId).delete();
        await db.meta.delete(`capture:${userId}`);
        return { episodes, facts, tasks };
      });
      const ids = [...removed.episodes, ...removed.facts];
      applyDeleted(this.ctx, ids);
      await this.tasks.rebuild(true);
      this.ctx.emit({ type: 'change', written: [], deleted: ids });
      this.signal?.publish({ written: [], deleted: removed.tasks });
      return { episodes: removed.episodes.length, facts: removed.facts.length };
    });
  }

  // ---------- portability ----------

  exportData(options: ExportOptions = {}): Promise<string> {
    return this.run('export', async () => {
      const { db } = this.ctx;
      const includeVectors = options.vectors ?? true;
      const snapshot = await db.transaction('r', [db.episodes, db.facts, db.profiles, db.vectorBlocks, db.meta, db.tasks, db.steps, db.patterns], async () => {
        const byUser = options.userId;
        const of = <T,>(table: Table<T, string>) => (byUser !== undefined ? table.where('userId').equals(byUser).toArray() : table.toArray());
        const episodes = await of(db.episodes);
        const facts = await of(db.facts);
        const profiles = await of(db.profiles);
        const tasks = await of(db.tasks);
        const steps = byUser !== undefined ? await db.steps.where('taskId').anyOf(tasks.map((t) => t.id)).toArray() : await db.steps.toArray();
        const patterns = await of(db.patterns);
        const vectors = new Map<string, Float32Array>();
        if (includeVectors) {
          for (const row of unpackBlocks(await of(db.vectorBlocks))) if (row.kind !== 'task') vectors.set(row.id, row.vector);
        }
        const stamp = (await db.meta.get(EMBEDDER_META_KEY))?.value as EmbedderStamp | undefined;
        return { episodes, facts, profiles, tasks, steps, patterns, vectors, stamp };
      });
      return serializeExport({
        header: {
          format: EXPORT_FORMAT,
          version: EXPORT_VERSION,
          exportedAt: this.ctx.now(),
          userId: options.userId ?? null,
          embedder: includeVectors && snapshot.stamp ? snapshot.stamp : null,
        },
        episodes: snapshot.episodes,
        facts: snapshot.facts,
        profiles: snapshot.profiles,
        tasks: snapshot.tasks,
        steps: snapshot.steps,
        patterns: snapshot.patterns,
        vectors: snapshot.vectors,
      });
    });
  }

  /**
   * Imports an export: validated whole before anything is written, embedded
   * where vectors are missing or from another embedder, then written in one
   * transaction. Records with existing ids are overwritten.
   */
  importData(text: string): Promise<ImportSummary> {
    return this.run('import', async () => {
      const contents = parseExport(text);
      const { db, embedder } = this.ctx;
      const sameSpace = contents.header.embedder?.id === embedder.id && contents.header.embedder.dimension === embedder.dimension;
      const records: MemoryRecord[] = [...contents.episodes, ...contents.facts];
      const vectors = new Map<string, Float32Array>();
      const needEmbedding: MemoryRecord[] = [];
      for (const record of records) {
        const v = sameSpace ? contents.vectors.get(record.id) : undefined;
        if (v && v.length === embedder.dimension) vectors.set(record.id, v);
        else if (indexDocOf(record)) needEmbedding.push(record);
      }
      const fresh = await embedTexts(this.ctx, needEmbedding.map((r) => r.text));
      needEmbedding.forEach((r, i) => vectors.set(r.id, fresh[i]!));

      const taskVectors = await embedTexts(this.ctx, contents.tasks.filter((t) => t.status === 'completed').map((t) => t.description || ' '));
      await this.transact('import', [db.episodes, db.facts, db.profiles, db.vectorBlocks, db.tasks, db.steps, db.patterns], async () => {
        await db.episodes.bulkPut(contents.episodes);
        await db.facts.bulkPut(contents.facts);
        await db.profiles.bulkPut(contents.profiles);
        await db.tasks.bulkPut(contents.tasks);
        await db.steps.bulkPut(contents.steps);
        await db.patterns.bulkPut(contents.patterns);
        // Imported records overwrite stored ones with the same ids; putVectors replaces their vectors too.
        await putVectors(db, [
          ...contents.tasks.filter((t) => t.status === 'completed').map((t, i) => ({ id: t.id, userId: t.userId, kind: 'task' as const, vector: taskVectors[i]! })),
          ...records.filter((r) => vectors.has(r.id)).map((r) => ({ id: r.id, userId: r.userId, kind: r.type, vector: vectors.get(r.id)! })),
        ]);
      });
      applyWritten(this.ctx, records.map((record) => ({ record, vector: vectors.get(record.id) })));
      if (contents.tasks.length) await this.tasks.rebuild(true);
      this.signal?.publish({ written: contents.tasks.map((t) => t.id), deleted: [] });
      this.ctx.emit({ type: 'change', written: records.map((r) => r.id), deleted: [] });
      return { episodes: contents.episodes.length, facts: contents.facts.length, profiles: contents.profiles.length, tasks: contents.tasks.length, reembedded: needEmbedding.length };
    });
  }

  // ---------- shutdown ----------

  /** Resolves when no call is in flight and the background queue is drained. */
  async idle(): Promise<void> {
    do {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.queue.idle();
    } while (this.inFlight.size > 0 || this.queue.pending > 0);
  }

  /** Stops taking work, lets in-flight calls finish (up to `timeoutMs`), then closes the database. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const timeoutMs = options.timeoutMs ?? 10_000;
    // In-flight jobs are cancelled (they stay queued, and emit no event); calls get until the deadline.
    this.closing.abort(new Error('engram is closing'));
    this.stopKeywordWarmup();
    await this.queue.close(timeoutMs);
    const limit = deadline(timeoutMs);
    try {
      await Promise.race([Promise.allSettled([...this.inFlight]), limit.reached]);
      // The index snapshot makes the next open fast; past the deadline, closing the database abandons it (a cache).
      if (this.snapshots) await Promise.race([this.snapshots.flush(), limit.reached]);
      await Promise.race([this.snapshots?.stop(), limit.reached]);
    } finally {
      limit.cancel();
    }
    this.signal?.close();
    this.ctx.db.close();
    await this.ctx.embedder.dispose?.();
  }

  /** Embedder identity and index size, for diagnostics and the inspector. */
  info(): { name: string; embedder: EmbedderStamp; indexed: number; openedFrom: 'snapshot' | 'records' } {
    return {
      name: this.ctx.db.name,
      embedder: { id: this.ctx.embedder.id, dimension: this.ctx.embedder.dimension },
      indexed: this.ctx.index.size,
      openedFrom: this.openedFrom,
    };
  }

  // ---------- internals ----------

  /** No call and no background job is running, so the index is exactly what has committed. */
  private isQuiet(): boolean {
    return this.inFlight.size === 0 && this.queue.active === 0;
  }

  private run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ClosedError(operation));
    const promise = body();
    this.inFlight.add(promise);
    const forget = () => this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  private async transact<T>(operation: string, tables: Table[], body: () => Promise<T>): Promise<T> {
    try {
      return await this.ctx.db.transaction('rw', tables as never, body);
    } catch (error) {
      throw toStorageError(error, operation);
    }
  }

  /**
   * Records that memories were recalled (`lastAccessedAt`, which recency
   * decays from) in the background: the recall has already returned.
   */
  private touch(memories: MemoryRecord[]): void {
    if (memories.length === 0) return;
    const at = this.ctx.now();
    for (const m of memories) {
      const doc = this.ctx.index.doc(m.id);
      if (doc) this.ctx.index.updateDoc({ ...doc, touchedAt: Math.max(doc.touchedAt, at) });
    }
    const { db } = this.ctx;
    const write = db
      .transaction('rw', [db.episodes, db.facts], async () => {
        for (const m of memories) {
          const table = m.type === 'episode' ? db.episodes : db.facts;
          await (table as Table<MemoryRecord, string>).update(m.id, { lastAccessedAt: at });
        }
      })
      .catch(() => undefined); // Best effort: a closed database or a deleted record is fine.
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  /** `call` names the public method in a ValidationError about an embedding. */
  private async writeFacts(inputs: FactInput[], call: 'facts.add' | 'facts.addMany'): Promise<Fact[]> {
    const now = this.ctx.now();
    const records = inputs.map((input) => buildFact(input, now));
    const ids = new Set(records.map((r) => r.id));
    if (ids.size !== records.length) {
      throw new ValidationError('Two facts in one call share an id.', [{ path: 'id', message: 'must be unique within the call' }]);
    }
    const vectors = await vectorsFor(this.ctx, inputs, { call, path: (i) => (call === 'facts.add' ? 'embedding' : `${i}.embedding`) });
    await this.transact('add facts', [this.ctx.db.facts, this.ctx.db.vectorBlocks], async () => {
      // Only an id the app chose can already exist: generated ones are new random UUIDs.
      const stored = await this.storedFacts(inputs.flatMap((input) => (input.id === undefined ? [] : [input.id])));
      records.forEach((record, i) => {
        const old = stored.get(record.id);
        if (!old) return;
        if (old.userId !== record.userId) {
          throw new ValidationError(`Fact "${record.id}" belongs to another user.`, [{ path: 'id', message: 'already used by another user' }]);
        }
        record.createdAt = inputs[i]!.createdAt ?? old.createdAt;
        record.validFrom = old.validFrom;
      });
      await this.ctx.db.facts.bulkPut(records);
      // Only facts already stored can have a vector to replace: new ids cost no lookup.
      const entries = records.map((r, i) => ({ id: r.id, userId: r.userId, kind: 'fact' as const, vector: vectors[i]! }));
      await putVectors(this.ctx.db, entries, { mayExist: [...stored.keys()] });
    });
    applyWritten(this.ctx, records.map((record, i) => ({ record, vector: vectors[i] })));
    this.ctx.emit({ type: 'change', written: records.map((r) => r.id), deleted: [] });
    return records;
  }

  /**
   * The stored facts among `ids`, inside the caller's transaction. One get
   * per id is one IndexedDB request each (about 0.5 s per 10,000 in
   * Chromium), so the keys between the smallest and the largest id are read
   * first in one request: unless that range holds many more keys than the
   * batch, it tells which ids exist, and only those are read.
   */
  private async storedFacts(ids: string[]): Promise<Map<string, Fact>> {
    if (ids.length === 0) return new Map();
    const { facts } = this.ctx.db;
    const wanted = new Set(ids);
    // IndexedDB orders string keys by UTF-16 code units, as Array.prototype.sort does.
    const sorted = [...wanted].sort();
    const limit = 4 * sorted.length + 1000;
    const inRange = (await facts.where(':id').between(sorted[0]!, sorted[sorted.length - 1]!, true, true).limit(limit).primaryKeys()) as string[];
    const present = inRange.length < limit ? inRange.filter((key) => wanted.has(key)) : sorted;
    const found = present.length ? await facts.bulkGet(present) : [];
    return new Map(found.flatMap((fact) => (fact ? [[fact.id, fact] as const] : [])));
  }

  private async mustGet(kind: 'episode', id: string): Promise<Episode>;
  private async mustGet(kind: 'fact', id: string): Promise<Fact>;
  private async mustGet(kind: MemoryType, id: string): Promise<MemoryRecord> {
    let record: MemoryRecord | undefined;
    try {
      record = kind === 'episode' ? await this.ctx.db.episodes.get(id) : await this.ctx.db.facts.get(id);
    } catch (error) {
      throw toStorageError(error, `read ${kind} "${id}"`);
    }
    if (!record) throw new NotFoundError(kind, id);
    return record;
  }

  private async fetchRecords(refs: { id: string; kind: MemoryType | 'task' }[]): Promise<(MemoryRecord | undefined)[]> {
    const episodeIds = refs.filter((r) => r.kind === 'episode').map((r) => r.id);
    const factIds = refs.filter((r) => r.kind === 'fact').map((r) => r.id);
    const { db } = this.ctx;
    // One read transaction over the tables that have ids (each transaction is a round trip to the browser's IndexedDB).
    const tables = [...(episodeIds.length ? [db.episodes] : []), ...(factIds.length ? [db.facts] : [])];
    if (tables.length === 0) return refs.map(() => undefined);
    const [episodes, facts] = await db.transaction('r', tables, () =>
      Promise.all([episodeIds.length ? db.episodes.bulkGet(episodeIds) : [], factIds.length ? db.facts.bulkGet(factIds) : []]),
    );
    const byId = new Map<string, MemoryRecord>();
    for (const r of [...episodes, ...facts]) if (r) byId.set(r.id, r);
    return refs.map((r) => byId.get(r.id));
  }

  private async allUserIds(): Promise<string[]> {
    return (await this.ctx.db.episodes.orderBy('userId').uniqueKeys()) as string[];
  }
}

