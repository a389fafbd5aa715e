import { ValidationError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { stepInputSchema, taskOutcomeSchema, type ParsedOutcome, type StepInput, type TaskOutcome, type TaskRecord } from '../schema/task.js';
import type { CompletedTask } from '../tasks/task-store.js';
import { checkOutcome, checkStep } from '../tasks/limits.js';

/**
 * What a task handle sends the engine: the two task operations of
 * src/operations/tasks.ts. Spelled out here so that the public `Task` type
 * does not carry the whole operation table; the facade passes the engine's
 * dispatcher, which the compiler checks against it.
 */
export interface TaskEngine {
  'task.flush'(args: [taskId: string, steps: ReturnType<typeof stepInputSchema.parse>[]]): Promise<number>;
  'task.complete'(args: [taskId: string, outcome: ParsedOutcome]): Promise<CompletedTask>;
}

/**
 * A running agent task. `log()` numbers steps in call order and buffers them;
 * the buffer is written in one transaction when `flushAt` (50) steps wait,
 * every `flushIntervalMs` (5 s), on `flush()` and before `complete()`. A
 * crash loses at most the unflushed buffer, never a flushed step.
 */
export class Task {
  readonly id: string;
  readonly record: TaskRecord;
  private buffer: ReturnType<typeof stepInputSchema.parse>[] = [];
  private logged = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;
  private completed = false;

  /** @internal Created by `memory.tasks.start()`. */
  constructor(
    private readonly engine: TaskEngine,
    record: TaskRecord,
    private readonly options: { flushAt: number; flushIntervalMs: number },
  ) {
    this.id = record.id;
    this.record = record;
  }

  /** Buffers one step and returns its number. Invalid or oversized steps throw at once and are not buffered. */
  log(step: StepInput): number {
    if (this.completed) throw new ValidationError(`Task "${this.id}" is completed; it takes no more steps.`, [{ path: 'task', message: 'completed' }]);
    const parsed = parseInput(stepInputSchema, step, 'task.log');
    checkStep(parsed, this.logged + 1);
    this.buffer.push(parsed);
    this.logged++;
    if (this.buffer.length >= this.options.flushAt) void this.flush().catch(() => undefined);
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush().catch(() => undefined), this.options.flushIntervalMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
    return this.logged;
  }

  /** Writes whatever is buffered (one transaction). Idempotent: with nothing buffered it only waits for earlier writes. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.engine['task.flush']([this.id, batch]);
      } catch (error) {
        // Keep the steps so a later flush can retry them, and report the failure there too.
        this.buffer = [...batch, ...this.buffer];
        this.failure = error;
        throw error;
      }
    });
    return this.writing.catch((error: unknown) => {
      this.writing = Promise.resolve();
      throw error;
    }).then(() => {
      if (this.failure && this.buffer.length === 0) this.failure = undefined;
    });
  }

  /** Flushes, scores, reflects and extracts patterns. */
  async complete(outcome: TaskOutcome): Promise<CompletedTask> {
    const parsed = parseInput(taskOutcomeSchema, outcome, 'task.complete');
    // Before the flush: an outcome over its limits fails with nothing written, the buffered steps kept.
    checkOutcome(parsed);
    await this.flush();
    const result = await this.engine['task.complete']([this.id, parsed]);
    this.completed = true;
    return result;
  }
}
