import * as z from 'zod';
import { rankingOptionsSchema } from '../search/ranking.js';

/** Transformers.js embedder settings (the default embedder). */
export const embedderOptionsSchema = z
  .object({
    model: z.string().min(1).max(300).optional(),
    localModelPath: z.string().min(1).max(2000).optional(),
    allowRemoteModels: z.boolean().optional(),
    dtype: z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16']).optional(),
    batchSize: z.number().int().min(1).max(1024).optional(),
    wasmPaths: z.string().min(1).max(2000).optional(),
    runtime: z.enum(['auto', 'onnx']).optional(),
  })
  .strict();
export type EmbedderOptions = z.input<typeof embedderOptionsSchema>;

/** Episode lifecycle: dedup-on-write, eviction, auto-chaining. */
export const lifecycleOptionsSchema = z
  .object({
    /** Cosine at or above which a new episode replaces an old one of the same user; 0 turns dedup off. */
    dedupThreshold: z.number().min(0).max(1).optional(),
    /** Per-user cap on (unpinned) episodes; the oldest are evicted first. */
    maxEpisodes: z.number().int().min(1).max(10_000_000).optional(),
    /** Evict (unpinned) episodes older than this many days; 0 = never. */
    ttlDays: z.number().min(0).max(100_000).optional(),
    /** Auto-link a new episode to a similar one that ended within this many hours. */
    chainWindowHours: z.number().min(0).max(100_000).optional(),
    /** Cosine above which auto-linking happens. */
    chainThreshold: z.number().min(0).max(1).optional(),
  })
  .strict();
export type LifecycleOptions = z.input<typeof lifecycleOptionsSchema>;

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

/**
 * The persisted index snapshot (search/persistence/index-snapshot.ts): a copy of the
 * search index in IndexedDB that lets a large store open without reading
 * every record. `false` turns it off (less storage, slower opens).
 */
export const indexSnapshotOptionsSchema = z.union([
  z.literal(false),
  z
    .object({
      /** Quiet time after the last change before the snapshot is saved, ms (default 2,000). It is also saved on close(). */
      saveDelayMs: z.number().int().min(0).max(3_600_000).optional(),
    })
    .strict(),
]);
export type IndexSnapshotOptions = z.input<typeof indexSnapshotOptionsSchema>;

/** The plain-data part of the configuration, the same in the page and in the worker. */
export const engineSettingsSchema = z
  .object({
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(200)
      .regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters'),
    lifecycle: lifecycleOptionsSchema.optional(),
    ranking: rankingOptionsSchema.optional(),
    indexSnapshot: indexSnapshotOptionsSchema.optional(),
  })
  .strict();
export type EngineSettings = z.infer<typeof engineSettingsSchema>;
