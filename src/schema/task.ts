import * as z from 'zod/mini';
import { idSchema, metadataSchema, tagSchema, timestampSchema, userIdSchema } from './common.js';
import { builtSchema, lazySchema } from './lazy-schema.js';

export const taskTypeSchema = z.enum(['code-generation', 'debugging', 'refactoring', 'testing', 'analysis', 'documentation', 'other']);
/**
 * The kind of an agent task: `'code-generation'`, `'debugging'`, `'refactoring'`, `'testing'`, `'analysis'`, `'documentation'` or `'other'`.
 */
export type TaskType = z.infer<typeof taskTypeSchema>;
export const complexitySchema = z.enum(['simple', 'moderate', 'complex']);
export type Complexity = z.infer<typeof complexitySchema>;

/** Strings are stored exactly as given: Unicode, NUL bytes and whitespace-only values included. */
const name = z.string().check(z.minLength(1), z.maxLength(200));

export const taskContextSchema = lazySchema(() => z.strictObject({
  language: z.optional(name),
  framework: z.optional(name),
  complexity: complexitySchema,
  domain: name,
  tags: z._default(z.array(tagSchema).check(z.maxLength(50)), []),
}));
/**
 * Where a task happens: language, framework, complexity (`simple`, `moderate`, `complex`), domain and tags. `tasks.relevant` and `patterns.relevant` match on it.
 * @interface
 */
export type TaskContext = z.infer<typeof taskContextSchema>;

export const taskStartSchema = lazySchema(() => z.strictObject({
  userId: z.optional(userIdSchema),
  description: z.string(),
  type: taskTypeSchema,
  context: taskContextSchema,
  metadata: z.optional(metadataSchema),
}));
/**
 * What `memory.tasks.start()` takes: a description, a `TaskType` and a `TaskContext`.
 * @interface
 */
export type TaskStart = z.input<typeof taskStartSchema>;

export const stepResultSchema = lazySchema(() => z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('success'), output: z.string() }),
  z.strictObject({ kind: z.literal('error'), message: z.string() }),
  z.strictObject({ kind: z.literal('timeout') }),
]));
/** How a step ended: `{ kind: 'success', output }`, `{ kind: 'error', message }` or `{ kind: 'timeout' }`. */
export type StepResult = z.infer<typeof stepResultSchema>;

export const stepInputSchema = lazySchema(() => z.strictObject({
  tool: name,
  action: z.string().check(z.maxLength(10_000)),
  // Sizes (and JSON-serialisability) are checked by tasks/limits.ts as LimitErrors; this only
  // rejects what IndexedDB cannot store (functions, symbols), which would poison the step buffer.
  parameters: z._default(z
    .record(z.string(), z.unknown()).check(z.refine(isCloneable, 'must be plain data (no functions or symbols)')), {}),
  result: stepResultSchema,
  latencyMs: z.number().check(z.gte(0)),
  tokens: z.optional(z.number().check(z.int(), z.gte(0))),
  metadata: z.optional(metadataSchema),
}));
/**
 * One step of a task, as `task.log()` takes it: the tool, the action, its parameters and result, how long it took.
 * @interface
 */
export type StepInput = z.input<typeof stepInputSchema>;

function isCloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/** A recorded step: the validated input plus where it sits in its task. */
export const stepRecordSchema = lazySchema(() => z.extend(builtSchema(stepInputSchema), {
  /** `${taskId}#${index}` */
  id: z.string().check(z.minLength(1), z.maxLength(300)),
  taskId: idSchema,
  /** 1-based, in call order. */
  index: z.number().check(z.int(), z.gte(1)),
  at: timestampSchema,
}));
/**
 * A step as stored: the `StepInput` with its task, its place (1-based) and its time.
 * @interface
 */
export type StepRecord = z.output<typeof stepRecordSchema>;

export const taskOutcomeSchema = lazySchema(() => z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('success'), verdict: z.string(), artifacts: z._default(z.array(z.string()), []) }),
  z.strictObject({ kind: z.literal('partial'), verdict: z.string(), completed: z.array(z.string()), failed: z.array(z.string()) }),
  z.strictObject({ kind: z.literal('failure'), reason: z.string(), details: z.optional(z.string()) }),
  z.strictObject({ kind: z.literal('abstained'), atStep: z.number().check(z.int(), z.gte(0)), reason: z.string() }),
]));
/**
 * How a task ended, as `task.complete()` takes it: `success` (`verdict`,
 * `artifacts`), `partial` (`verdict`, `completed`, `failed`), `failure`
 * (`reason`, `details`) or `abstained` (`atStep`, `reason`).
 */
export type TaskOutcome = z.input<typeof taskOutcomeSchema>;
export type ParsedOutcome = z.output<typeof taskOutcomeSchema>;

const score = z.number();

export const rewardBreakdownSchema = lazySchema(() => z.strictObject({
  total: score,
  base: score,
  abstention: score,
  efficiency: score,
  durationScore: score,
  stepScore: score,
  complexityBonus: score,
  qualityMultiplier: score,
  learningBonus: score,
}));
/**
 * A completed task's reward (`total`) and the parts it is computed from (src/tasks/reward.ts).
 * @interface
 */
export type RewardBreakdown = z.infer<typeof rewardBreakdownSchema>;

const reflectionItems = z.array(z.string());
export const reflectionSchema = lazySchema(() => z.strictObject({ successes: reflectionItems, improvements: reflectionItems, insights: reflectionItems }));
/**
 * What a completed task's steps show: what went well, what to improve, and insights (fixed rules, no LLM).
 * @interface
 */
export type Reflection = z.infer<typeof reflectionSchema>;

/**
 * A stored task. Running tasks have no outcome, reward or reflection yet;
 * completed ones have all of them (checked, so an import cannot store a
 * completed task that `tasks.stats()` or `tasks.relevant()` cannot read).
 */
export const taskRecordSchema = lazySchema(() => z.strictObject({
  id: idSchema,
  userId: userIdSchema,
  description: z.string().check(z.maxLength(100_000)),
  type: taskTypeSchema,
  context: taskContextSchema,
  status: z.enum(['running', 'completed']),
  startedAt: timestampSchema,
  completedAt: z.nullable(timestampSchema),
  stepCount: z.number().check(z.int(), z.gte(0)),
  outcome: z.nullable(taskOutcomeSchema),
  reward: z.nullable(rewardBreakdownSchema),
  reflection: z.nullable(reflectionSchema),
  patternIds: z.array(z.string().check(z.minLength(1), z.maxLength(300))),
  metadata: metadataSchema,
}).check(z.superRefine((task, ctx) => {
  const completed = task.status === 'completed';
  for (const key of ['completedAt', 'outcome', 'reward', 'reflection'] as const) {
    if (completed && task[key] === null) ctx.addIssue({ code: 'custom', path: [key], message: 'must be set on a completed task' });
    if (!completed && task[key] !== null) ctx.addIssue({ code: 'custom', path: [key], message: 'must be null on a running task' });
  }
})));
/**
 * A task as stored: running ones have no outcome, reward or reflection yet; completed ones have all three.
 * @interface
 */
export type TaskRecord = z.output<typeof taskRecordSchema>;

export const patternKindSchema = z.enum(['tool-sequence', 'error-recovery', 'decision-point', 'context']);
export type PatternKind = z.infer<typeof patternKindSchema>;

export const patternRecordSchema = lazySchema(() => z.strictObject({
  /** Derived from the content, so identical patterns merge. */
  id: z.string().check(z.minLength(1), z.maxLength(300)),
  userId: userIdSchema,
  kind: patternKindSchema,
  description: z.string(),
  tools: z.array(z.string()),
  domain: z.string().check(z.maxLength(200)),
  language: z.nullable(z.string().check(z.maxLength(200))),
  occurrences: z.number().check(z.int(), z.gte(1)),
  successRate: z.number().check(z.gte(0), z.lte(1)),
  /** successRate × √occurrences */
  confidence: z.number().check(z.gte(0)),
  evidenceTaskIds: z.array(idSchema),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
}));
/**
 * A pattern that recurs across a user's completed tasks (a tool sequence, an error recovery, a decision point, a context), with how often it occurred and how often it succeeded.
 * @interface
 */
export type PatternRecord = z.infer<typeof patternRecordSchema>;

export const taskQuerySchema = lazySchema(() => z.strictObject({
  description: z.string().check(z.minLength(1), z.maxLength(10_000)),
  context: z._default(z.partial(builtSchema(taskContextSchema), { complexity: true, domain: true }), { tags: [] }),
}));
/**
 * What `memory.tasks.relevant()` takes: the new task's description and what is known of its context.
 * @interface
 */
export type TaskQuery = z.input<typeof taskQuerySchema>;

export const taskIdSchema = idSchema;

/** Options of agent task recording (`createMemory({ tasks })`). */
export const tasksOptionsSchema = lazySchema(() => z.strictObject({
  /** Extract patterns in a durable background job instead of during `complete()` (default false). */
  asyncPatterns: z.optional(z.boolean()),
  /** Most pattern jobs waiting at once; past it `complete()` extracts synchronously (default 1000). */
  maxPatternQueue: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1_000_000))),
  /** Items per reflection list (default 5). */
  reflectionItems: z.optional(z.number().check(z.int(), z.gte(1), z.lte(50))),
  /** Buffered steps that trigger a write (default 50). */
  flushAt: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))),
  /** Buffered steps are written at least this often (default 5000 ms). */
  flushIntervalMs: z.optional(z.number().check(z.int(), z.gte(10), z.lte(3_600_000))),
  /** Efficiency weights of the reward (default 0.5 / 0.5). */
  efficiencyWeights: z.optional(z.strictObject({ duration: z.number().check(z.gte(0)), steps: z.number().check(z.gte(0)) })),
}));
/**
 * `createMemory({ tasks })`: when buffered steps are written, how many reflection items, and whether patterns are extracted in the background.
 * @interface
 */
export type TasksOptions = z.input<typeof tasksOptionsSchema>;
