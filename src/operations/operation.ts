import type * as z from 'zod/mini';
import { idSchema } from '../schema/common.js';

/**
 * One parameter of a public method: its schema (defaults applied by zod),
 * and the label its validation errors carry after the method's name
 * (`episodes.update: id`; none: `episodes.update`).
 */
export interface Param<S extends z.ZodMiniType = z.ZodMiniType> {
  schema: S;
  label?: string;
}

/**
 * How the engine runs an operation (engine/dispatch.ts):
 * - `after-access-times`: refused once the engine closes, tracked until it
 *   settles (idle and close wait for it), and started after the pending
 *   access-time write, so it reads what recall recorded;
 * - `tracked`: the same, without waiting for that write: recall (back-to-back
 *   recalls gather their access times into one write), the writes that
 *   return no record a recall may have accessed (observe, adding turns),
 *   and facts.add, which gives the one stored fact it reads (a merge's)
 *   its pending access from memory;
 * - `untracked`: runs as it is (`idle` waits for the tracked calls, so it
 *   cannot be one; `info` reads counters).
 */
export type Runs = 'after-access-times' | 'tracked' | 'untracked';

/** The values a method's parameters are parsed into: what the handler receives. */
export type ParsedArgs<P extends readonly Param[]> = { -readonly [I in keyof P]: P[I] extends Param<infer S> ? z.output<S> : never };
/** What the app may pass for a method's parameters. */
export type GivenArgs<P extends readonly Param[]> = { -readonly [I in keyof P]: P[I] extends Param<infer S> ? z.input<S> : never };

/**
 * A public operation's signature, defined once: the facade validates its
 * parameters and forwards them (facade/forward.ts), the engine dispatches
 * them to its handler (engine/dispatch.ts, engine/handlers/), and the
 * worker's API type is derived from the table of them (operations/table.ts).
 * The handler lives apart so that the page, which only validates and
 * forwards, never loads the engine's code: a bundler splits it into the
 * chunk the worker (or the in-process connector) imports.
 */
export interface Operation<M extends string = string, P extends readonly Param[] = readonly Param[]> {
  /** The public method (`episodes.add`); also the dispatcher's key. */
  method: M;
  /** What the operation does, as errors say it: `Cannot add an episode: this memory has been closed.` */
  name: string;
  input: P;
  /**
   * The last parameter is an options object that may carry `signal` (an
   * AbortSignal): it is taken out before validation, and its abort reaches
   * the handler as `caller` (facade/call-signal.ts, jobs/call-aborts.ts).
   */
  cancellable: boolean;
  runs: Runs;
}

export type AnyOperation = Operation<string, readonly Param[]>;

/** Declares an operation; `cancellable` defaults to false and `runs` to `after-access-times`. */
export function defineOperation<const M extends string, const P extends readonly Param[]>(operation: {
  method: M;
  name: string;
  input: P;
  cancellable?: boolean;
  runs?: Runs;
}): Operation<M, P> {
  return { cancellable: false, runs: 'after-access-times', ...operation };
}

/** A parameter: `param(idSchema, 'id')`. */
export function param<S extends z.ZodMiniType>(schema: S, label?: string): Param<S> {
  return label === undefined ? { schema } : { schema, label };
}

/** An operation on one record by its id (`episodes.get`, `facts.delete`, ...): its one parameter is the id. */
export function byIdOperation<const M extends string>(method: M, name: string) {
  return defineOperation({ method, name, input: [param(idSchema, 'id')] });
}

/** Lists one user's records of a kind (`episodes.list`, ...): its one parameter is the query. */
export function listOperation<const M extends string, S extends z.ZodMiniType>(method: M, name: string, query: S) {
  return defineOperation({ method, name, input: [param(query)] });
}

/** Changes one record by its id (`episodes.update`, ...): the id, then the patch. */
export function updateOperation<const M extends string, S extends z.ZodMiniType>(method: M, name: string, patch: S) {
  return defineOperation({ method, name, input: [param(idSchema, 'id'), param(patch)] });
}
