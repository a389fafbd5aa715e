import type { Engine } from '../engine.js';

/**
 * The engine as the facade sees it: every method async. An in-process Engine
 * satisfies it directly; in a browser it is a Comlink proxy to the worker's.
 */
export type EngineApi = {
  [K in keyof Engine as Engine[K] extends (...args: never[]) => unknown ? K : never]: Engine[K] extends (
    ...args: infer A
  ) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};
