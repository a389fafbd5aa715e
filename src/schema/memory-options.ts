import * as z from 'zod/mini';
import { isEmbedder, type Embedder, type ProgressListener } from './embedder.js';
import { rankingOptionsSchema } from './ranking-options.js';
import { embedderOptionsSchema, engineSettingsSchema, indexSnapshotOptionsSchema, lifecycleOptionsSchema } from './options.js';
import { captureOptionsSchema, extractionOptionsSchema, factOptionsSchema } from './extraction-options.js';
import { tasksOptionsSchema } from './task.js';
import { turnOptionsSchema } from './turn-options.js';
import type { LLMProvider } from '../llm/types.js';
import { syncOptionsSchema } from './sync-options.js';
import { timeParserSchema } from './time-parser.js';
import type { TimeQueryParser } from '../time/query-parser.js';
import { builtSchema, lazySchema } from './lazy-schema.js';

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `must be a function (${what})`);

/** Everything `createMemory()` accepts. Unknown keys are rejected so typos surface. */
export const memoryOptionsSchema = lazySchema(() => z.strictObject({
  name: builtSchema(engineSettingsSchema).shape.name,
  indexedDB: z.optional(
    z.custom<IDBFactory>(
      (v) => typeof v === 'object' && v !== null && typeof (v as IDBFactory).open === 'function',
      "must be an IDBFactory (e.g. fake-indexeddb's indexedDB)",
    ),
  ),
  IDBKeyRange: z.optional(
    z.custom<typeof IDBKeyRange>((v) => typeof v === 'function' || (typeof v === 'object' && v !== null), 'must be an IDBKeyRange implementation'),
  ),
  /** Node: keep the memory on disk in this folder (a durable store; see README "Node"). Instead of `indexedDB`. */
  directory: z.optional(z.string().check(z.minLength(1, 'must be a folder path'))),
  /**
   * Node, with `directory`: open the durable store as a read-only snapshot of
   * its files, even while another process owns it. No lock is taken and
   * nothing on disk is written, truncated, compacted, created or removed;
   * every write rejects with a StorageError. The store must exist.
   */
  readOnly: z.optional(z.boolean()),
  /**
   * Browser: run the engine in a Web Worker (default true). Pass the URL of
   * engram's `engine.worker.js` (bundlers that do not emit it, e.g. esbuild),
   * a Worker, or a factory, to control how it is created. Node: in-process.
   */
  worker: z.optional(
    z.union([
      z.boolean(),
      z.string().check(z.minLength(1)),
      z.instanceof(URL),
      z.custom<Worker>((v) => typeof v === 'object' && v !== null && typeof (v as Worker).postMessage === 'function'),
      fn('() => Worker'),
    ]),
  ),
  embedder: z.optional(z
    .union([
      z.custom<Embedder>((v) => isEmbedder(v), 'an Embedder needs id (string), dimension (number) and embed()'),
      embedderOptionsSchema,
    ])),
  /** The LLM: `openAICompatible(...)`, `httpProxy(...)` or any `(request) => Promise<{ output }>`. Optional. */
  llm: z.optional(fn('LLM provider')),
  extraction: z.optional(extractionOptionsSchema),
  facts: z.optional(factOptionsSchema),
  capture: z.optional(captureOptionsSchema),
  tasks: z.optional(tasksOptionsSchema),
  /** When `observe()` keeps the conversation itself as `turn` memories (by default: when no LLM is configured), and their retention. */
  turns: z.optional(turnOptionsSchema),
  lifecycle: z.optional(lifecycleOptionsSchema),
  ranking: z.optional(rankingOptionsSchema),
  /**
   * The app's IANA time zone ("Europe/Lisbon"): recall reads the times a
   * query names ("on May 8th", "yesterday evening", "last week") as that
   * zone's calendar days. Default: the runtime's. `recall({ timeZone })` overrides it per call.
   */
  timeZone: builtSchema(engineSettingsSchema).shape.timeZone,
  /**
   * Reads the times and sessions a recall query names, in the app's
   * language (default: English, `englishTimeParser`). Functions cannot be
   * cloned into a worker: with the engine in a Web Worker (the browser's
   * default) the parser stays on the page and recall calls it through the
   * worker's message channel, once or twice a query.
   */
  timeParser: z.optional(timeParserSchema),
  indexSnapshot: z.optional(indexSnapshotOptionsSchema),
  /**
   * Browser extensions: in a content script engram refuses to start
   * (`ContextError`), because its IndexedDB would belong to the visited
   * page's origin and that website could read the memories. `true` says the
   * page's origin is meant to own the data.
   */
  allowPageOrigin: z.optional(z.boolean()),
  /** How long the worker script may take to load and answer engram's handshake before `createMemory()` rejects with a `WorkerStartError` (default 30,000 ms). */
  workerStartTimeoutMs: z.optional(z.number().check(z.int(), z.gte(1), z.lte(600_000))),
  onProgress: z.optional(fn('progress listener')),
  /** Injectable clock (epoch ms), for tests of time-based rules. In-process only. */
  clock: z.optional(fn('() => number')),
  /** Sync with other devices through a hub (docs/sync.md): `{ remote, key, space, intervalMs?, autoStart? }`; see `memory.sync`. */
  sync: z.optional(syncOptionsSchema),
}));

/**
 * What `createMemory()` takes: the store's name and where it lives, the
 * embedder, an optional LLM, and the options of each part.
 * @interface
 */
export type MemoryOptions = Omit<z.input<typeof memoryOptionsSchema>, 'onProgress' | 'clock' | 'worker' | 'embedder' | 'llm' | 'timeParser'> & {
  /** Reads the times a recall query names in another language than English (see `TimeQueryParser`). */
  timeParser?: TimeQueryParser;
  /** The LLM that extracts facts and writes episodes; none by default (see `LLMProvider`). */
  llm?: LLMProvider;
  /** Progress of model loading, index rebuilds and re-embedding. */
  onProgress?: ProgressListener;
  /** Injectable clock (epoch ms), for tests of time-based rules. In-process only. */
  clock?: () => number;
  /**
   * Browser: run the engine in a Web Worker (default true): `true` for
   * engram's bundled worker, its URL, a `Worker`, or a function that makes
   * one; `false` runs it on this thread.
   */
  worker?: boolean | string | URL | Worker | (() => Worker);
  /** Which model embeds: options (default: the bundled model, offline) or any `Embedder`. */
  embedder?: Embedder | z.input<typeof embedderOptionsSchema>;
};
