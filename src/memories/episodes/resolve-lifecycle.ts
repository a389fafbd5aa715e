import type { LifecycleOptions } from '../../schema/options.js';

/** The lifecycle options with their defaults filled in. */
export interface ResolvedLifecycle {
  dedupThreshold: number;
  maxEpisodes: number;
  ttlDays: number;
  chainWindowHours: number;
  chainThreshold: number;
}

export function resolveLifecycle(options: LifecycleOptions = {}): ResolvedLifecycle {
  return {
    dedupThreshold: options.dedupThreshold ?? 0.92,
    maxEpisodes: options.maxEpisodes ?? 500,
    ttlDays: options.ttlDays ?? 0,
    chainWindowHours: options.chainWindowHours ?? 48,
    chainThreshold: options.chainThreshold ?? 0.85,
  };
}
