import * as z from 'zod';
import { isEmbedder, type Embedder, type ProgressListener } from '../embed/embedder.js';
import { rankingOptionsSchema } from '../search/ranking.js';
import { embedderOptionsSchema, engineSettingsSchema, indexSnapshotOptionsSchema, lifecycleOptionsSchema } from './options.js';
import { captureOptionsSchema, extractionOptionsSchema, factOptionsSchema } from './extraction-options.js';
import { tasksOptionsSchema } from './task.js';
import type { LLMProvider } from '../llm/types.js';

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `must be a function (${what})`);

/** Everything `createMemory()` accepts. Unknown keys are rejected so typos surface. */
export const memoryOptionsSchema = z
  .object({
    name: engineSettingsSchema.shape.name,
    indexedDB: z.custom<IDBFactory>((v) => typeof v === 'object' && v !== null && typeof (v as IDBFactory).open === 'function', 'must be an IDBFactory (e.g. fake-indexeddb\'s indexedDB)').optional(),
    IDBKeyRange: z.custom<typeof IDBKeyRange>((v) => typeof v === 'function' || (typeof v === 'object' && v !== null), 'must be an IDBKeyRange implementation').optional(),
    /** Node: keep the memory on disk in this folder (a durable store; see README "Node"). Instead of `indexedDB`. */
    directory: z.string().min(1, 'must be a folder path').optional(),
    /**
     * Browser: run the engine in a Web Worker (default true). Pass the URL of
     * engram's `engine.worker.js` (bundlers that do not emit it, e.g. esbuild),
     * a Worker, or a factory, to control how it is created. Node: in-process.
     */
    worker: z.union([z.boolean(), z.string().min(1), z.instanceof(URL), z.custom<Worker>((v) => typeof v === 'object' && v !== null && typeof (v as Worker).postMessage === 'function'), fn('() => Worker')]).optional(),
    embedder: z
      .union([
        z.custom<Embedder>((v) => isEmbedder(v), 'an Embedder needs id (string), dimension (number) and embed()'),
        embedderOptionsSchema,
      ])
      .optional(),
    /** The LLM: `openAICompatible(...)`, `httpProxy(...)` or any `(request) => Promise<{ output }>`. Optional. */
    llm: fn('LLM provider').optional(),
    extraction: extractionOptionsSchema.optional(),
    facts: factOptionsSchema.optional(),
    capture: captureOptionsSchema.optional(),
    tasks: tasksOptionsSchema.optional(),
    lifecycle: lifecycleOptionsSchema.optional(),
    ranking: rankingOptionsSchema.optional(),
    indexSnapshot: indexSnapshotOptionsSchema.optional(),
    /**
     * Browser extensions: in a content script engram refuses to start
     * (`ContextError`), because its IndexedDB would belong to the visited
     * page's origin and that website could read the memories. `true` says the
     * page's origin is meant to own the data.
     */
    allowPageOrigin: z.boolean().optional(),
    /** How long the worker script may take to load and answer engram's handshake before `createMemory()` rejects with a `WorkerStartError` (default 30,000 ms). */
    workerStartTimeoutMs: z.number().int().min(1).max(600_000).optional(),
    onProgress: fn('progress listener').optional(),
    /** Injectable clock (epoch ms), for tests of time-based rules. In-process only. */
    clock: fn('() => number').optional(),
  })
  .strict();

export type MemoryOptions = Omit<z.input<typeof memoryOptionsSchema>, 'onProgress' | 'clock' | 'worker' | 'embedder' | 'llm'> & {
  llm?: LLMProvider;
  onProgress?: ProgressListener;
  clock?: () => number;
  worker?: boolean | string | URL | Worker | (() => Worker);
  embedder?: Embedder | z.input<typeof embedderOptionsSchema>;
};
