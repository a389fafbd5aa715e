import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/** Conversational extraction (stage 1 and stage 2). */
export const extractionOptionsSchema = lazySchema(() => z.strictObject({
  /** Model for stage 1 (and every other call unless overridden). Providers fall back to their own default. */
  model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  /** Model for stage 2 episode writing; inherits `model` when unset. */
  episodeModel: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  /** Per-call budget for stage 2, in USD (default 0.15). */
  episodeBudgetUsd: z.optional(z.number().check(z.gt(0, 'must be greater than 0'), z.lte(100))),
  /** Stage 2 timeout (default 120000, at least 10000). */
  episodeTimeoutMs: z.optional(z.number().check(z.int(), z.gte(10_000, 'must be at least 10000'), z.lte(3_600_000))),
  /** Stage 1 timeout (default 30000). */
  timeoutMs: z.optional(z.number().check(z.int(), z.gte(100), z.lte(600_000))),
  /** Stage 2 attempts before a job is dropped (default 3). */
  maxAttempts: z.optional(z.number().check(z.int(), z.gte(1), z.lte(20))),
  /** First retry delay in ms, doubled per attempt (default 2000). */
  retryBackoffMs: z.optional(z.number().check(z.int(), z.gte(0), z.lte(3_600_000))),
  /** Provenance of LLM-written episodes (default 'untrusted': they come from user-supplied text). */
  episodeProvenance: z.optional(z.enum(['trusted', 'untrusted'])),
}));
/**
 * `createMemory({ extraction })`: the models and budgets of the stage-1 and episode calls.
 * @interface
 */
export type ExtractionOptions = z.input<typeof extractionOptionsSchema>;

/** Facts: creation gate and merge-on-write. */
export const factOptionsSchema = lazySchema(() => z.strictObject({
  /** Facts below this importance are dropped unless they update an existing fact (default 0.3). */
  minImportance: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /** Neighbours (same user and category) considered for a merge (default 5). */
  mergeTopK: z.optional(z.number().check(z.int(), z.gte(1), z.lte(50))),
  /** At or above this similarity a new fact is the same fact: merged without asking (default 0.85). */
  autoUpdateAt: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /** Neighbours at or above this similarity go to a same-fact LLM check (default 0.60). */
  checkFrom: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /** 'recreate' writes a composed fact and retires the old; 'update' rewrites the old in place (default 'recreate'). */
  mergeMode: z.optional(z.enum(['recreate', 'update'])),
}));
/**
 * `createMemory({ facts })`: which extracted facts are kept, and when a new fact merges with a current one.
 * @interface
 */
export type FactOptions = z.input<typeof factOptionsSchema>;

/** Episode capture controls, checked before an episode is scheduled. */
export const captureOptionsSchema = lazySchema(() => z.strictObject({
  /** Turns that must pass after a user's last captured episode (default 3). */
  cooldownTurns: z.optional(z.number().check(z.int(), z.gte(0), z.lte(10_000))),
  /** Minutes that must pass after a user's last captured episode (default 10). */
  cooldownMinutes: z.optional(z.number().check(z.gte(0), z.lte(100_000))),
  /** Captured episodes per day, in the user's time zone (default 20). */
  maxPerDay: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100_000))),
  /** A new episode this close in time to a recent one may be merged into it (default 6 hours). */
  mergeWindowHours: z.optional(z.number().check(z.gte(0), z.lte(10_000))),
  /** Merge when novelty (1 − best cosine to a recent episode) is below this (default 0.15). */
  noveltyMin: z.optional(z.number().check(z.gte(0), z.lte(1))),
}));
/**
 * `createMemory({ capture })`: cooldowns, a daily cap and a novelty check before an episode is scheduled.
 * @interface
 */
export type CaptureOptions = z.input<typeof captureOptionsSchema>;
