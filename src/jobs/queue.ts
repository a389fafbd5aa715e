import PQueue from 'p-queue';
import type { EngramDatabase } from '../store/database.js';
import type { JobRecord } from '../schema/records.js';
import type { Commit } from '../store/commit.js';
import { deadline } from '../timers.js';

/** What a job handler reports back. */
export type JobResult =
  | { kind: 'done' }
  /** A transient failure (provider error, timeout): try again later, up to `maxAttempts`. */
  | { kind: 'retry'; reason: string }
  /** A permanent failure: drop the job now. */
  | { kind: 'drop'; reason: string }
  /** The queue is closing and the handler stopped: leave the job queued for next time. */
  | { kind: 'cancelled' };

export type JobHandler = (job: JobRecord, signal: AbortSignal) => Promise<JobResult>;

export interface JobQueueOptions {
  db: EngramDatabase;
  /** The commit path every write of the queue goes through (store/commit.ts). */
  commit: Commit;
  handlers: Record<string, JobHandler>;
  now: () => number;
  /** Attempts before a job is dropped (default 3). */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt (default 1 s). */
  backoffMs?: number;
  /** How long a running job's lease lasts before another engine may take it over (default 10 min). */
  leaseMs?: number;
}

/**
 * The durable background queue. Jobs are rows in the `jobs` table first
 * (written in the same transaction as whatever caused them), then run here
 * with a concurrency of one per user (one p-queue per user). A reload or a
 * crash loses nothing: opening the database resumes every queued row. Several
 * engines on one database (tabs) do not run a job twice: a runner takes a
 * lease on the row in a transaction before starting. Where the Web Locks API
 * exists (browsers, workers), the runner also holds a lock named after the
 * job; the browser releases it when the holder dies (a closed tab, a killed
 * worker), so a job whose runner crashed resumes at the next open instead of
 * waiting out the lease.
 */
export class JobQueue {
  private readonly perUser = new Map<string, PQueue>();
  private readonly scheduled = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly controllers = new Set<AbortController>();
  private readonly waiters = new Set<() => void>();
  private closing = false;
  private running = 0;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly leaseMs: number;

  constructor(private readonly options: JobQueueOptions) {
    this.maxAttempts = options.maxAttempts ?? 3;
    this.backoffMs = options.backoffMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 600_000;
  }

  /** A new job row, for the caller to put inside its own transaction, then `schedule()` after commit. */
  newJob(id: string, kind: string, userId: string, payload: unknown): JobRecord {
    const now = this.options.now();
    return { id, kind, userId, payload, attempts: 0, runAfter: now, leaseUntil: 0, createdAt: now };
  }

  /** Schedules every queued row (at open: resume what a previous session left). */
  async resume(): Promise<void> {
    const rows = await this.options.db.jobs.toArray();
    for (const row of rows) this.schedule(row);
  }

  schedule(job: JobRecord): void {
    if (this.closing || this.scheduled.has(job.id)) return;
    this.scheduled.add(job.id);
    // With Web Locks a lease left by a dead runner means nothing: the lock decides (see run()).
    const delay = Math.max(job.runAfter, webLocks() ? 0 : job.leaseUntil) - this.options.now();
    if (delay > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(job.id);
        this.enqueue(job);
      }, delay);
      this.timers.set(job.id, timer);
    } else {
      this.enqueue(job);
    }
  }

  /** Jobs waiting or running, for `memory.jobs` and the inspector. */
  get pending(): number {
    return this.scheduled.size;
  }

  /** Jobs running right now (a job's writes reach the index before it stops counting). */
  get active(): number {
    return this.running;
  }

  /** Resolves when nothing is scheduled or running. */
  idle(): Promise<void> {
    if (this.scheduled.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /**
   * Stops taking work. Running jobs are asked to stop (their signal aborts)
   * and given until `deadline` ms; whatever was not finished stays queued.
   */
  async close(deadlineMs: number): Promise<void> {
    this.closing = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const queue of this.perUser.values()) queue.clear();
    for (const controller of this.controllers) controller.abort(new Error('engram is closing'));
    const drained = Promise.all([...this.perUser.values()].map((q) => q.onIdle()));
    const limit = deadline(deadlineMs);
    try {
      await Promise.race([drained, limit.reached]);
    } finally {
      limit.cancel();
    }
    this.scheduled.clear();
    this.settle();
  }

  private enqueue(job: JobRecord): void {
    if (this.closing) return;
    let queue = this.perUser.get(job.userId);
    if (!queue) this.perUser.set(job.userId, (queue = new PQueue({ concurrency: 1 })));
    void queue.add(() => this.run(job.id)).catch(() => undefined);
  }

  private async run(id: string): Promise<void> {
    const locks = webLocks();
    if (!locks) return this.runLeased(id, false);
    let ran = false;
    await locks
      .request(`engram-job:${this.options.db.name}:${id}`, { ifAvailable: true }, async (lock) => {
        // No lock: a live engine (another tab) is running this job right now; it settles the row.
        if (!lock) return;
        ran = true;
        await this.runLeased(id, true);
      })
      .catch(() => undefined);
    if (!ran) this.finish(id, false);
  }

  /** Takes the row's lease and runs the job; `locked`: this engine holds the job's Web Lock, so an old lease is a dead runner's. */
  private async runLeased(id: string, locked: boolean): Promise<void> {
    const { db, now } = this.options;
    if (this.closing) return this.finish(id, false);
    let job: JobRecord | undefined;
    try {
      // Take the lease atomically so a second engine on this database cannot run the job too.
      job = await this.options.commit('take a job', ['jobs'], async () => {
        const row = await db.jobs.get(id);
        if (!row || (row.leaseUntil > now() && !locked)) return undefined;
        row.leaseUntil = now() + this.leaseMs;
        await db.jobs.put(row);
        return row;
      });
    } catch {
      job = undefined;
    }
    if (!job) return this.finish(id, false);

    const handler = this.options.handlers[job.kind];
    const controller = new AbortController();
    this.controllers.add(controller);
    this.running++;
    let result: JobResult;
    try {
      result = handler ? await handler(job, controller.signal) : { kind: 'drop', reason: `no handler for job kind "${job.kind}"` };
    } catch (error) {
      result = { kind: 'retry', reason: (error as Error)?.message ?? String(error) };
    } finally {
      this.controllers.delete(controller);
      this.running--;
    }
    if (controller.signal.aborted && result.kind !== 'done') result = { kind: 'cancelled' };

    let requeued = false;
    try {
      requeued = await this.settleRow(job, result);
    } finally {
      this.finish(id, requeued);
    }
  }

  /** Deletes, releases or reschedules the row; true when the job was scheduled again. */
  private async settleRow(job: JobRecord, result: JobResult): Promise<boolean> {
    const { db, now, commit } = this.options;
    if (result.kind === 'done') {
      await commit('finish a job', ['jobs'], () => db.jobs.delete(job.id));
      return false;
    }
    if (result.kind === 'cancelled') {
      await commit('release a job', ['jobs'], () => db.jobs.update(job.id, { leaseUntil: 0 }));
      return false;
    }
    const attempts = job.attempts + 1;
    if (result.kind === 'drop' || attempts >= this.maxAttempts) {
      await commit('drop a job', ['jobs', 'events'], async (scope) => {
        await db.jobs.delete(job.id);
        await scope.audit({ type: 'job', userId: job.userId, jobId: job.id, kind: job.kind, outcome: 'dropped', reason: result.reason, attempts }, now());
      });
      return false;
    }
    const runAfter = now() + this.backoffMs * 2 ** (attempts - 1);
    const next = { ...job, attempts, runAfter, leaseUntil: 0 };
    await commit('reschedule a job', ['jobs'], async (scope) => {
      await db.jobs.put(next);
      scope.emit({ type: 'job', userId: job.userId, jobId: job.id, kind: job.kind, outcome: 'retry', reason: result.reason, attempts });
    });
    if (this.closing) return false;
    this.scheduled.delete(job.id);
    this.schedule(next);
    return true;
  }

  private finish(id: string, requeued: boolean): void {
    if (!requeued) this.scheduled.delete(id);
    this.settle();
  }

  private settle(): void {
    if (this.scheduled.size > 0) return;
    for (const resolve of this.waiters) resolve();
    this.waiters.clear();
  }
}

/** The Web Locks API where it exists (browsers and their workers); undefined in Node. */
function webLocks(): LockManager | undefined {
  return (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
}
