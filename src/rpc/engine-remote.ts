import type * as Comlink from 'comlink';
import type { EngineDispatcher } from '../engine/dispatch.js';

/**
 * The engine as the facade reaches it: the worker's dispatcher through
 * Comlink. In-process the facade holds the dispatcher itself, whose methods
 * already answer with promises of the same values (Comlink's own proxy
 * methods, such as releasing the proxy, are never called by the facade).
 */
export type EngineRemote = Comlink.Remote<EngineDispatcher>;
