import type * as z from 'zod/mini';
import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { TASK_RECORDS } from '../memories/registry.js';
import type { JobHandler, JobQueue } from '../jobs/queue.js';
import type { WithUser } from '../schema/default-user.js';
import {
  taskOutcomeSchema,
  type ParsedOutcome,
  type PatternRecord,
  type StepRecord,
  type TaskContext,
  type TaskRecord,
  taskStartSchema,
  stepInputSchema,
  type TasksOptions,
} from '../schema/task.js';
import type { MemoryIndex } from '../search/memory-index.js';
import { loadEntries } from '../index-sync/index-loader.js';
import { resolveRanking } from '../search/ranking.js';
import { taskDoc } from '../search/index-doc.js';
import { readRecord } from '../store/read-record.js';
import { putVectors, unpackBlocks } from '../store/vector-blocks.js';
import { contextMatchScore, TASK_RETRIEVAL_WEIGHTS } from './context-match.js';
import { checkDescription, checkOutcome, checkStep, checkTaskSize, LIMITS } from './limits.js';
import { extractPatterns, mergePattern, patternMatchesContext } from './patterns.js';
import { reflect } from './reflection.js';
import { computeReward } from './reward.js';



export const PATTERN_JOB = 'patterns';

/** Task retrieval ranks by the dense + keyword relevance alone; context and reward are blended after. */
const RELEVANCE_ONLY = resolveRanking({ weights: { importance: 0, recency: 0, pinned: 0 } });

/**
 * What `task.complete()` returns: the reward with its breakdown, the reflection, and the ids of the patterns the task added to.
 */
export interface CompletedTask {
  reward: NonNullable<TaskRecord['reward']>;
  reflection: NonNullable<TaskRecord['reflection']>;
  patternIds: string[];
}

/** A completed task `tasks.relevant()` found, with its score and the parts it was blended from. */
export interface RelevantTask {
  task: TaskRecord;
  score: number;
  parts: { description: number; context: number; reward: number };
}

/**
 * Counts over a user's tasks (`tasks.stats()`): running and completed, outcomes, the mean reward, patterns, and the background pattern queue.
 */
export interface TaskStats {
  total: number;
  running: number;
  completed: number;
  byOutcome: Record<string, number>;
  averageReward: number | null;
  patterns: number;
  patternQueue: { pending: number; processed: number; extractedInline: number };
}

/** Counts behind `tasks.stats().patternQueue`, shared by the task store and the pattern job. */
export interface PatternCounters {
  /** Pattern jobs run. */
  processed: number;
  /** Completions that extracted inline because the pattern queue was full. */
  extractedInline: number;
}

/** The queued pattern extraction (tasks.asyncPatterns). */
export function patternJobHandler(ctx: EngineContext, counters: PatternCounters): JobHandler {
  return async (job) => {
    const { taskId } = job.payload as { taskId: string };
    const { db } = ctx;
    const task = await db.tasks.get(taskId);
    if (!task?.outcome) return { kind: 'drop', reason: `task ${taskId} is gone` };
    const steps = await db.steps.where('[taskId+index]').between([taskId, 0], [taskId, Infinity]).toArray();
    const patterns = extractPatterns(task, steps, task.outcome.kind === 'success', ctx.now());
    await ctx.commit('extract patterns', ['patterns', 'tasks'], async () => {
      const existing = await db.patterns.bulkGet(patterns.map((p) => p.id));
      await db.patterns.bulkPut(patterns.map((p, i) => (existing[i] ? mergePattern(existing[i]!, p) : p)));
      await db.tasks.update(taskId, { patternIds: patterns.map((p) => p.id) });
    });
    counters.processed++;
    return { kind: 'done' };
  };
}

/**
 * Agent task episodes, engine side: storage, scoring, patterns, retrieval.
 * Writes go through the commit path, which also keeps `index` (completed
 * tasks' description vectors) in step.
 */
export class TaskStore {
  constructor(
    private readonly ctx: EngineContext,
    private readonly index: MemoryIndex,
    private readonly options: TasksOptions,
    private readonly queue: JobQueue,
    private readonly counters: PatternCounters,
  ) {}

  /** Loads completed tasks and their description vectors into the task index (at open); re-embeds when the vector space changed. */
  async rebuild(sameSpace: boolean): Promise<void> {
    const { db, embedder } = this.ctx;
    const tasks = (await db.tasks.toArray()).filter((t) => t.status === 'completed');
    // One read of every task block (kind-indexed), not one lookup per task.
    const stored = new Map(unpackBlocks(await db.vectorBlocks.where('kind').equals('task').toArray()).map((v) => [v.id, v.vector]));
    const missing = tasks.filter((t) => !sameSpace || stored.get(t.id)?.length !== embedder.dimension);
    const fresh = await embedTexts(this.ctx, missing.map((t) => t.description || ' '));
    if (missing.length) {
      await this.ctx.commit('embed task descriptions', ['vectorBlocks'], () =>
        putVectors(db, missing.map((t, i) => ({ id: t.id, userId: t.userId, kind: 'task' as const, vector: fresh[i]! }))),
      );
    }
    const freshById = new Map(missing.map((t, i) => [t.id, fresh[i]!]));
    this.index.clear();
    loadEntries(this.index, tasks.map((t) => ({ doc: taskDoc(t), text: t.description, vector: freshById.get(t.id) ?? stored.get(t.id)! })));
  }

  async start(input: WithUser<z.output<typeof taskStartSchema>>): Promise<TaskRecord> {
    checkDescription(input.description);
    const task: TaskRecord = {
      id: newId(),
      userId: input.userId,
      description: input.description,
      type: input.type,
      context: input.context,
      status: 'running',
      startedAt: this.ctx.now(),
      completedAt: null,
      stepCount: 0,
      outcome: null,
      reward: null,
      reflection: null,
      patternIds: [],
      metadata: input.metadata ?? {},
    };
    // A new id: no vector can be stored under it yet (a running task keeps none).
    await this.ctx.commit('start a task', [TASK_RECORDS], (scope) => scope.put(TASK_RECORDS, [task], undefined, { mayExist: [] }));
    return task;
  }

  /** Writes a batch of buffered steps in one transaction; numbering continues from the stored count. */
  async appendSteps(taskId: string, steps: z.output<typeof stepInputSchema>[]): Promise<number> {
    if (steps.length === 0) return (await this.mustGet(taskId)).stepCount;
    const { db } = this.ctx;
    return this.ctx.commit('record steps', ['tasks', 'steps'], async (scope) => {
      const task = await scope.get(TASK_RECORDS, taskId);
      if (task.status !== 'running') throw new ValidationError(`Task "${taskId}" is already completed.`, [{ path: 'taskId', message: 'completed' }]);
      steps.forEach((s, i) => checkStep(s, task.stepCount + i + 1));
      const at = this.ctx.now();
      const records: StepRecord[] = steps.map((s, i) => ({ ...s, id: `${taskId}#${task.stepCount + i + 1}`, taskId, index: task.stepCount + i + 1, at }));
      await db.steps.bulkAdd(records);
      await db.tasks.update(taskId, { stepCount: task.stepCount + steps.length });
      return task.stepCount + steps.length;
    });
  }

  async complete(taskId: string, outcomeInput: ParsedOutcome): Promise<CompletedTask> {
    const outcome = taskOutcomeSchema.parse(outcomeInput);
    checkOutcome(outcome);
    const task = await this.mustGet(taskId);
    if (task.status !== 'running') throw new ValidationError(`Task "${taskId}" is already completed.`, [{ path: 'taskId', message: 'completed' }]);
    const steps = await this.ctx.db.steps.where('[taskId+index]').between([taskId, 0], [taskId, Infinity]).toArray();
    checkTaskSize(JSON.stringify({ task, steps, outcome }));
    const now = this.ctx.now();
    const succeeded = outcome.kind === 'success';
    const asyncPatterns = !!this.options.asyncPatterns && this.queue.pending < (this.options.maxPatternQueue ?? 1000);
    const patterns = asyncPatterns ? [] : extractPatterns(task, steps, succeeded, now);
    if (this.options.asyncPatterns && !asyncPatterns) this.counters.extractedInline++;

    const [vector] = await embedTexts(this.ctx, [task.description || ' ']);
    const { db } = this.ctx;
    const done = await this.ctx.commit('complete a task', [TASK_RECORDS, 'patterns', 'jobs'], async (scope) => {
      const current = await db.tasks.get(taskId);
      if (!current || current.status !== 'running') throw new ValidationError(`Task "${taskId}" is already completed.`, [{ path: 'taskId', message: 'completed' }]);
      const existing = await db.patterns.bulkGet(patterns.map((p) => p.id));
      const merged = patterns.map((p, i) => (existing[i] ? mergePattern(existing[i]!, p) : p));
      const newPatternCount = existing.filter((e) => !e).length;
      await db.patterns.bulkPut(merged);
      const reward = computeReward({ outcome, steps, durationMs: now - task.startedAt, complexity: task.context.complexity, newPatternCount, metadata: task.metadata, weights: this.options.efficiencyWeights });
      const reflection = reflect({ outcome, steps, durationMs: now - task.startedAt, complexity: task.context.complexity, maxItems: this.options.reflectionItems });
      const completed: TaskRecord = { ...current, status: 'completed', completedAt: now, outcome, reward, reflection, patternIds: merged.map((p) => p.id) };
      await scope.put(TASK_RECORDS, [completed], [vector!]);
      if (asyncPatterns) {
        const job = this.queue.newJob(`patterns:${taskId}`, PATTERN_JOB, task.userId, { taskId });
        await db.jobs.put(job);
        scope.afterCommit(() => this.queue.schedule(job));
      }
      return completed;
    });
    return { reward: done.reward!, reflection: done.reflection!, patternIds: done.patternIds };
  }

  /** Tasks of a user, newest first (for the inspector). */
  async list(userId: string, limit: number): Promise<TaskRecord[]> {
    const tasks = await this.ctx.db.tasks.where('userId').equals(userId).toArray();
    return tasks.sort((a, b) => b.startedAt - a.startedAt).slice(0, limit);
  }

  async get(taskId: string): Promise<TaskRecord & { steps: StepRecord[] }> {
    const task = await this.mustGet(taskId);
    const steps = await this.ctx.db.steps.where('[taskId+index]').between([taskId, 0], [taskId, Infinity]).toArray();
    return { ...task, steps };
  }

  /**
   * Completed tasks most useful for a new one: description relevance (the
   * embedder plus keywords) blended with context match and reward, with the
   * weights in TASK_RETRIEVAL_WEIGHTS.
   */
  async relevant(query: { description: string; context: Partial<TaskContext> }, options: { k: number; userId: string }): Promise<RelevantTask[]> {
    const [vector] = await embedTexts(this.ctx, [query.description]);
    const hits = this.index.search(options.userId, { vector: vector!, text: query.description }, {
      k: Math.max(options.k * 5, 50),
      ranking: RELEVANCE_ONLY,
      now: this.ctx.now(),
    });
    const tasks = await this.ctx.db.tasks.bulkGet(hits.map((h) => h.id));
    const w = TASK_RETRIEVAL_WEIGHTS;
    return hits
      .flatMap((hit, i) => {
        const task = tasks[i];
        if (!task || task.status !== 'completed') return [];
        const parts = { description: hit.parts.relevance, context: contextMatchScore(query.context, task.context), reward: Math.min(1, Math.max(0, task.reward?.total ?? 0)) };
        return [{ task, parts, score: w.description * parts.description + w.context * parts.context + w.reward * parts.reward }];
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, options.k);
  }

  async relevantPatterns(context: Partial<TaskContext>, options: { k: number; userId: string }): Promise<PatternRecord[]> {
    const all = await this.ctx.db.patterns.where('userId').equals(options.userId).toArray();
    return all
      .filter((p) => patternMatchesContext(p, context))
      .sort((a, b) => b.confidence - a.confidence || b.occurrences - a.occurrences)
      .slice(0, options.k);
  }

  async stats(userId?: string): Promise<TaskStats> {
    const { db } = this.ctx;
    const tasks = userId === undefined ? await db.tasks.toArray() : await db.tasks.where('userId').equals(userId).toArray();
    const completed = tasks.filter((t) => t.status === 'completed');
    const byOutcome: Record<string, number> = {};
    for (const t of completed) byOutcome[t.outcome!.kind] = (byOutcome[t.outcome!.kind] ?? 0) + 1;
    const rewards = completed.map((t) => t.reward?.total ?? 0);
    return {
      total: tasks.length,
      running: tasks.length - completed.length,
      completed: completed.length,
      byOutcome,
      averageReward: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null,
      patterns: userId === undefined ? await db.patterns.count() : await db.patterns.where('userId').equals(userId).count(),
      patternQueue: { pending: await db.jobs.where('kind').equals(PATTERN_JOB).count(), processed: this.counters.processed, extractedInline: this.counters.extractedInline },
    };
  }

  limits(): typeof LIMITS {
    return LIMITS;
  }

  private mustGet(taskId: string): Promise<TaskRecord> {
    return readRecord(this.ctx.db, TASK_RECORDS, taskId);
  }
}
