import { z } from 'zod';
import { idSchema, metadataSchema, tagSchema, userIdSchema } from './common.js';

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

export interface StepRecord extends z.output<typeof stepInputSchema> {
  /** `${taskId}#${index}` */
  id: string;
  taskId: string;
  /** 1-based, in call order. */
  index: number;
  at: number;
}

export const taskOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('success'), verdict: z.string(), artifacts: z.array(z.string()).default([]) }).strict(),
  z.object({ kind: z.literal('partial'), verdict: z.string(), completed: z.array(z.string()), failed: z.array(z.string()) }).strict(),
  z.object({ kind: z.literal('failure'), reason: z.string(), details: z.string().optional() }).strict(),
  z.object({ kind: z.literal('abstained'), atStep: z.number().int().min(0), reason: z.string() }).strict(),
]);
export type TaskOutcome = z.input<typeof taskOutcomeSchema>;
export type ParsedOutcome = z.output<typeof taskOutcomeSchema>;

export interface RewardBreakdown {
  total: number;
  base: number;
  abstention: number;
  efficiency: number;
  durationScore: number;
  stepScore: number;
  complexityBonus: number;
  qualityMultiplier: number;
  learningBonus: number;
}

export interface Reflection {
  successes: string[];
  improvements: string[];
  insights: string[];
}

export interface TaskRecord {
  id: string;
  userId: string;
  description: string;
  type: TaskType;
  context: TaskContext;
  status: 'running' | 'completed';
  startedAt: number;
  completedAt: number | null;
  stepCount: number;
  outcome: ParsedOutcome | null;
  reward: RewardBreakdown | null;
  reflection: Reflection | null;
  patternIds: string[];
  metadata: Record<string, unknown>;
}

export type PatternKind = 'tool-sequence' | 'error-recovery' | 'decision-point' | 'context';

export interface PatternRecord {
  /** Derived from the content, so identical patterns merge. */
  id: string;
  userId: string;
  kind: PatternKind;
  description: string;
  tools: string[];
  domain: string;
  language: string | null;
  occurrences: number;
  successRate: number;
  /** successRate × √occurrences */
  confidence: number;
  evidenceTaskIds: string[];
  createdAt: number;
  updatedAt: number;
}

export const taskQuerySchema = z
  .object({
    description: z.string().min(1).max(10_000),
    context: taskContextSchema.partial({ complexity: true, domain: true }).default({ tags: [] }),
  })
  .strict();
export type TaskQuery = z.input<typeof taskQuerySchema>;

export const taskIdSchema = idSchema;
