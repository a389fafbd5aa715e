import type * as Comlink from 'comlink';
import type { Embedder, ProgressListener } from '../schema/embedder.js';
import type { EngineConfig } from '../engine/parts.js';
import type { EngineDispatcher } from '../engine/dispatch.js';
import type { EngramEvent } from '../telemetry/events.js';
import type { PageProvider } from './page-provider.js';
import type { ProviderDescriptor } from '../llm/descriptor.js';
import type { TimeQueryParser } from '../time/query-parser.js';

/**
 * The object the worker exposes with Comlink. Functions can only cross as
 * top-level Comlink proxies, so each callback is its own argument; a custom
 * page-side embedder travels as its identity plus a proxied `embed`.
 */
export interface WorkerEntry {
  /** The start-up handshake: answers as soon as the worker script has loaded (see rpc/start-worker.ts). */
  ping(): typeof WORKER_PING_REPLY;
  /** Opens the engine and answers with its dispatcher, proxied: the page calls every operation through it. */
  open(
    config: EngineConfig,
    customEmbedder: { id: string; dimension: number } | null,
    embed: Embedder['embed'] | null,
    onProgress: ProgressListener | null,
    onEvent: ((event: EngramEvent) => void) | null,
    /** A built-in provider, rebuilt in the worker so its HTTP calls run there. */
    llmDescriptor: ProviderDescriptor | null,
    /** A custom provider, which stays on the page and is called through Comlink, aborts included (see page-provider.ts). */
    llmOnPage: PageProvider | null,
    /** The app's time parser (createMemory's `timeParser`), which stays on the page: its language and proxied methods. */
    timeParser: { language: string; asksForContent: boolean } | null,
    timeParse: TimeQueryParser['parse'] | null,
    timeAsksForContent: NonNullable<TimeQueryParser['asksForContent']> | null,
  ): Promise<EngineDispatcher & Comlink.ProxyMarked>;
}

/** What `ping()` answers, so a script that is not engram's worker is told apart. */
export const WORKER_PING_REPLY = 'engram-worker/1';
