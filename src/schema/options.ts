import { timeZoneSchema } from './time-zone.js';
import * as z from 'zod/mini';
import { rankingOptionsSchema } from './ranking-options.js';
import { lazySchema } from './lazy-schema.js';

/** Transformers.js embedder settings (the default embedder). */
export const embedderOptionsSchema = lazySchema(() => z.strictObject({
  model: z.optional(z.string().check(z.minLength(1), z.maxLength(300))),
  localModelPath: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
  allowRemoteModels: z.optional(z.boolean()),
  dtype: z.optional(z.enum(['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16'])),
  batchSize: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1024))),
  wasmPaths: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
  runtime: z.optional(z.enum(['auto', 'onnx'])),
}));
/**
 * `createMemory({ embedder })` as options: which model, where its files are, precision, batch size, runtime (default: the bundled model).
 * @interface
 */
export type EmbedderOptions = z.input<typeof embedderOptionsSchema>;

/** Episode lifecycle: dedup-on-write, eviction, auto-chaining. */
export const lifecycleOptionsSchema = lazySchema(() => z.strictObject({
  /** Cosine at or above which a new episode replaces an old one of the same user; 0 turns dedup off. */
  dedupThreshold: z.optional(z.number().check(z.gte(0), z.lte(1))),
  /** Per-user cap on (unpinned) episodes; the oldest are evicted first. */
  maxEpisodes: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000_000))),
  /** Evict (unpinned) episodes older than this many days; 0 = never. */
  ttlDays: z.optional(z.number().check(z.gte(0), z.lte(100_000))),
  /** Auto-link a new episode to a similar one that ended within this many hours. */
  chainWindowHours: z.optional(z.number().check(z.gte(0), z.lte(100_000))),
  /** Cosine above which auto-linking happens. */
  chainThreshold: z.optional(z.number().check(z.gte(0), z.lte(1))),
}));
/**
 * `createMemory({ lifecycle })`: episode dedup-on-write, eviction (TTL, per-user cap) and auto-chaining.
 * @interface
 */
export type LifecycleOptions = z.input<typeof lifecycleOptionsSchema>;

/**
 * The persisted index snapshot (index-sync/index-snapshot.ts): a copy of the
 * search index in IndexedDB that lets a large store open without reading
 * every record. `false` turns it off (less storage, slower opens).
 */
export const indexSnapshotOptionsSchema = lazySchema(() => z.union([
  z.literal(false),
  z.strictObject({
    /** Quiet time after the last change before the snapshot is saved, ms (default 2,000); changes that keep coming sooner are saved at the latest ten times this after the first. It is also saved on close(). */
    saveDelayMs: z.optional(z.number().check(z.int(), z.gte(0), z.lte(3_600_000))),
  }),
]));
/**
 * `createMemory({ indexSnapshot })`: when the index snapshot is saved (`saveDelayMs`), or `false` for none (less storage, slower opens of large stores).
 */
export type IndexSnapshotOptions = z.input<typeof indexSnapshotOptionsSchema>;

/** The plain-data part of the configuration, the same in the page and in the worker. */
export const engineSettingsSchema = lazySchema(() => z.strictObject({
  name: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(200), z.regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters')),
  lifecycle: z.optional(lifecycleOptionsSchema),
  ranking: z.optional(rankingOptionsSchema),
  indexSnapshot: z.optional(indexSnapshotOptionsSchema),
  /** The app's IANA time zone: the one recall reads a query's times in ("on May 8th", "this morning"); default the runtime's. */
  timeZone: z.optional(timeZoneSchema),
}));
export type EngineSettings = z.infer<typeof engineSettingsSchema>;
