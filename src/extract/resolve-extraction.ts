import type { CaptureOptions, ExtractionOptions, FactOptions } from '../schema/extraction-options.js';

/** The extraction, fact and capture options with their defaults filled in. */
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
