import * as z from 'zod';
import { idSchema, metadataSchema, tagSchema, timestampSchema, userIdSchema } from './common.js';

export const taskTypeSchema = z.enum(['code-generation', 'debugging', 'refactoring', 'testing', 'analysis', 'documentation', 'other']);
export type TaskType = z.infer<typeof taskTypeSchema>;
export const complexitySchema = z.enum(['simple', 'moderate', 'complex']);
export type Complexity = z.infer<typeof complexitySchema>;

/** Strings are stored exactly as given: Unicode, NUL bytes and whitespace-only values included. */
const name = z.string().min(1).max(200);

export const taskContextSchema = z
  .object({
    language: name.optional(),
    framework: name.optional(),
    complexity: complexitySchema,
    domain: name,
    tags: z.array(tagSchema).max(50).default([]),
  })
  .strict();
export type TaskContext = z.infer<typeof taskContextSchema>;

export const taskStartSchema = z
  .object({
    userId: userIdSchema.optional(),
    description: z.string(),
    type: taskTypeSchema,
    context: taskContextSchema,
    metadata: metadataSchema.optional(),
  })
  .strict();
export type TaskStart = z.input<typeof taskStartSchema>;

export const stepResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('success'), output: z.string() }).strict(),
  z.object({ kind: z.literal('error'), message: z.string() }).strict(),
  z.object({ kind: z.literal('timeout') }).strict(),
]);
export type StepResult = z.infer<typeof stepResultSchema>;

export const stepInputSchema = z
  .object({
    tool: name,
    action: z.string().max(10_000),
    // Sizes (and JSON-serialisability) are checked by tasks/limits.ts as LimitErrors; this only
    // rejects what IndexedDB cannot store (functions, symbols), which would poison the step buffer.
    parameters: z
      .record(z.string(), z.unknown())
      .refine(isCloneable, 'must be plain data (no functions or symbols)')
      .default({}),
    result: stepResultSchema,
    latencyMs: z.number().finite().min(0),
    tokens: z.number().int().min(0).optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
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
export const stepRecordSchema = stepInputSchema.extend({
  /** `${taskId}#${index}` */
  id: z.string().min(1).max(300),
  taskId: idSchema,
  /** 1-based, in call order. */
  index: z.number().int().min(1),
  at: timestampSchema,
});
export type StepRecord = z.output<typeof stepRecordSchema>;

export const taskOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('success'), verdict: z.string(), artifacts: z.array(z.string()).default([]) }).strict(),
  z.object({ kind: z.literal('partial'), verdict: z.string(), completed: z.array(z.string()), failed: z.array(z.string()) }).strict(),
  z.object({ kind: z.literal('failure'), reason: z.string(), details: z.string().optional() }).strict(),
  z.object({ kind: z.literal('abstained'), atStep: z.number().int().min(0), reason: z.string() }).strict(),
]);
export type TaskOutcome = z.input<typeof taskOutcomeSchema>;
export type ParsedOutcome = z.output<typeof taskOutcomeSchema>;

const score = z.number().finite();

export const rewardBreakdownSchema = z
  .object({
    total: score,
    base: score,
    abstention: score,
    efficiency: score,
    durationScore: score,
    stepScore: score,
    complexityBonus: score,
    qualityMultiplier: score,
    learningBonus: score,
  })
  .strict();
export type RewardBreakdown = z.infer<typeof rewardBreakdownSchema>;

const reflectionItems = z.array(z.string());
export const reflectionSchema = z.object({ successes: reflectionItems, improvements: reflectionItems, insights: reflectionItems }).strict();
export type Reflection = z.infer<typeof reflectionSchema>;

/**
 * A stored task. Running tasks have no outcome, reward or reflection yet;
 * completed ones have all of them (checked, so an import cannot store a
 * completed task that `tasks.stats()` or `tasks.relevant()` cannot read).
 */
export const taskRecordSchema = z
  .object({
    id: idSchema,
    userId: userIdSchema,
    description: z.string().max(100_000),
    type: taskTypeSchema,
    context: taskContextSchema,
    status: z.enum(['running', 'completed']),
    startedAt: timestampSchema,
    completedAt: timestampSchema.nullable(),
    stepCount: z.number().int().min(0),
    outcome: taskOutcomeSchema.nullable(),
    reward: rewardBreakdownSchema.nullable(),
    reflection: reflectionSchema.nullable(),
    patternIds: z.array(z.string().min(1).max(300)),
    metadata: metadataSchema,
  })
  .strict()
  .superRefine((task, ctx) => {
    const completed = task.status === 'completed';
    for (const key of ['completedAt', 'outcome', 'reward', 'reflection'] as const) {
      if (completed && task[key] === null) ctx.addIssue({ code: 'custom', path: [key], message: 'must be set on a completed task' });
      if (!completed && task[key] !== null) ctx.addIssue({ code: 'custom', path: [key], message: 'must be null on a running task' });
    }
  });
export type TaskRecord = z.output<typeof taskRecordSchema>;

export const patternKindSchema = z.enum(['tool-sequence', 'error-recovery', 'decision-point', 'context']);
export type PatternKind = z.infer<typeof patternKindSchema>;

export const patternRecordSchema = z
  .object({
    /** Derived from the content, so identical patterns merge. */
    id: z.string().min(1).max(300),
    userId: userIdSchema,
    kind: patternKindSchema,
    description: z.string(),
    tools: z.array(z.string()),
    domain: z.string().max(200),
    language: z.string().max(200).nullable(),
    occurrences: z.number().int().min(1),
    successRate: z.number().min(0).max(1),
    /** successRate × √occurrences */
    confidence: z.number().finite().min(0),
    evidenceTaskIds: z.array(idSchema),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  })
  .strict();
export type PatternRecord = z.infer<typeof patternRecordSchema>;

export const taskQuerySchema = z
  .object({
    description: z.string().min(1).max(10_000),
    context: taskContextSchema.partial({ complexity: true, domain: true }).default({ tags: [] }),
  })
  .strict();
export type TaskQuery = z.input<typeof taskQuerySchema>;

export const taskIdSchema = idSchema;

/** Options of agent task recording (`createMemory({ tasks })`). */
export const tasksOptionsSchema = z
  .object({
    /** Extract patterns in a durable background job instead of during `complete()` (default false). */
    asyncPatterns: z.boolean().optional(),
    /** Most pattern jobs waiting at once; past it `complete()` extracts synchronously (default 1000). */
    maxPatternQueue: z.number().int().min(1).max(1_000_000).optional(),
    /** Items per reflection list (default 5). */
    reflectionItems: z.number().int().min(1).max(50).optional(),
    /** Buffered steps that trigger a write (default 50). */
    flushAt: z.number().int().min(1).max(1000).optional(),
    /** Buffered steps are written at least this often (default 5000 ms). */
    flushIntervalMs: z.number().int().min(10).max(3_600_000).optional(),
    /** Efficiency weights of the reward (default 0.5 / 0.5). */
    efficiencyWeights: z.object({ duration: z.number().min(0), steps: z.number().min(0) }).strict().optional(),
  })
  .strict();
export type TasksOptions = z.input<typeof tasksOptionsSchema>;
