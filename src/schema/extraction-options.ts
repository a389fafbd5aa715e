import * as z from 'zod';

/** Conversational extraction (stage 1 and stage 2). */
export const extractionOptionsSchema = z
  .object({
    /** Model for stage 1 (and every other call unless overridden). Providers fall back to their own default. */
    model: z.string().min(1).max(200).optional(),
    /** Model for stage 2 episode writing; inherits `model` when unset. */
    episodeModel: z.string().min(1).max(200).optional(),
    /** Per-call budget for stage 2, in USD (default 0.15). */
    episodeBudgetUsd: z.number().gt(0, 'must be greater than 0').max(100).optional(),
    /** Stage 2 timeout (default 120000, at least 10000). */
    episodeTimeoutMs: z.number().int().min(10_000, 'must be at least 10000').max(3_600_000).optional(),
    /** Stage 1 timeout (default 30000). */
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    /** Stage 2 attempts before a job is dropped (default 3). */
    maxAttempts: z.number().int().min(1).max(20).optional(),
    /** First retry delay in ms, doubled per attempt (default 2000). */
    retryBackoffMs: z.number().int().min(0).max(3_600_000).optional(),
    /** Provenance of LLM-written episodes (default 'untrusted': they come from user-supplied text). */
    episodeProvenance: z.enum(['trusted', 'untrusted']).optional(),
  })
  .strict();
export type ExtractionOptions = z.input<typeof extractionOptionsSchema>;

/** Facts: creation gate and merge-on-write. */
export const factOptionsSchema = z
  .object({
    /** Facts below this importance are dropped unless they update an existing fact (default 0.3). */
    minImportance: z.number().min(0).max(1).optional(),
    /** Neighbours (same user and category) considered for a merge (default 5). */
    mergeTopK: z.number().int().min(1).max(50).optional(),
    /** At or above this similarity a new fact is the same fact: merged without asking (default 0.85). */
    autoUpdateAt: z.number().min(0).max(1).optional(),
    /** Neighbours at or above this similarity go to a same-fact LLM check (default 0.60). */
    checkFrom: z.number().min(0).max(1).optional(),
    /** 'recreate' writes a composed fact and retires the old; 'update' rewrites the old in place (default 'recreate'). */
    mergeMode: z.enum(['recreate', 'update']).optional(),
  })
  .strict();
export type FactOptions = z.input<typeof factOptionsSchema>;

/** Episode capture controls, checked before an episode is scheduled. */
export const captureOptionsSchema = z
  .object({
    /** Turns that must pass after a user's last captured episode (default 3). */
    cooldownTurns: z.number().int().min(0).max(10_000).optional(),
    /** Minutes that must pass after a user's last captured episode (default 10). */
    cooldownMinutes: z.number().min(0).max(100_000).optional(),
    /** Captured episodes per day, in the user's time zone (default 20). */
    maxPerDay: z.number().int().min(1).max(100_000).optional(),
    /** A new episode this close in time to a recent one may be merged into it (default 6 hours). */
    mergeWindowHours: z.number().min(0).max(10_000).optional(),
    /** Merge when novelty (1 − best cosine to a recent episode) is below this (default 0.15). */
    noveltyMin: z.number().min(0).max(1).optional(),
  })
  .strict();
export type CaptureOptions = z.input<typeof captureOptionsSchema>;

export interface ResolvedExtraction {
  model?: string;
  episodeModel?: string;
  episodeBudgetUsd: number;
  episodeTimeoutMs: number;
  timeoutMs: number;
  maxAttempts: number;
  retryBackoffMs: number;
  episodeProvenance: 'trusted' | 'untrusted';
  facts: Required<FactOptions>;
  capture: Required<CaptureOptions>;
}

export function resolveExtraction(extraction: ExtractionOptions = {}, facts: FactOptions = {}, capture: CaptureOptions = {}): ResolvedExtraction {
  return {
    model: extraction.model,
    episodeModel: extraction.episodeModel ?? extraction.model,
    episodeBudgetUsd: extraction.episodeBudgetUsd ?? 0.15,
    episodeTimeoutMs: extraction.episodeTimeoutMs ?? 120_000,
    timeoutMs: extraction.timeoutMs ?? 30_000,
    maxAttempts: extraction.maxAttempts ?? 3,
    retryBackoffMs: extraction.retryBackoffMs ?? 2000,
    episodeProvenance: extraction.episodeProvenance ?? 'untrusted',
    facts: {
      minImportance: facts.minImportance ?? 0.3,
      mergeTopK: facts.mergeTopK ?? 5,
      autoUpdateAt: facts.autoUpdateAt ?? 0.85,
      checkFrom: facts.checkFrom ?? 0.6,
      mergeMode: facts.mergeMode ?? 'recreate',
    },
    capture: {
      cooldownTurns: capture.cooldownTurns ?? 3,
      cooldownMinutes: capture.cooldownMinutes ?? 10,
      maxPerDay: capture.maxPerDay ?? 20,
      mergeWindowHours: capture.mergeWindowHours ?? 6,
      noveltyMin: capture.noveltyMin ?? 0.15,
    },
  };
}
