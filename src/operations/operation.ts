import type * as z from 'zod/mini';
import type { EngineParts } from '../engine/parts.js';
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
 * How the engine runs an operation (operations/dispatch.ts):
 * - `after-access-times`: refused once the engine closes, tracked until it
 *   settles (idle and close wait for it), and started after the pending
 *   access-time write, so it reads what recall recorded;
 * - `tracked`: the same, without waiting for that write (back-to-back
 *   recalls gather their access times into one write);
 * - `untracked`: runs as it is (`idle` waits for the tracked calls, so it
 *   cannot be one; `info` reads counters).
 */
export type Runs = 'after-access-times' | 'tracked' | 'untracked';

/** The values a method's parameters are parsed into: what the handler receives. */
export type ParsedArgs<P extends readonly Param[]> = { -readonly [I in keyof P]: P[I] extends Param<infer S> ? z.output<S> : never };
/** What the app may pass for a method's parameters. */
export type GivenArgs<P extends readonly Param[]> = { -readonly [I in keyof P]: P[I] extends Param<infer S> ? z.input<S> : never };

/**
 * A public operation, defined once: the facade validates its parameters and
 * forwards them (facade/forward.ts), the engine dispatches them to its
 * handler (operations/dispatch.ts), and the worker's API type is derived from
 * the table of them (operations/table.ts).
 */
export interface Operation<M extends string = string, P extends readonly Param[] = readonly Param[], R = unknown> {
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
  handler(parts: EngineParts, args: ParsedArgs<P>, caller: AbortSignal | undefined): Promise<R>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<string, readonly Param[], any>;
export type ResultOf<O> = O extends Operation<string, readonly Param[], infer R> ? R : never;

/** Declares an operation; `cancellable` defaults to false and `runs` to `after-access-times`. */
export function defineOperation<const M extends string, const P extends readonly Param[], R>(operation: {
  method: M;
  name: string;
  input: P;
  cancellable?: boolean;
  runs?: Runs;
  handler(parts: EngineParts, args: ParsedArgs<P>, caller: AbortSignal | undefined): Promise<R>;
}): Operation<M, P, R> {
  return { cancellable: false, runs: 'after-access-times', ...operation };
}

/** A parameter: `param(idSchema, 'id')`. */
export function param<S extends z.ZodMiniType>(schema: S, label?: string): Param<S> {
  return label === undefined ? { schema } : { schema, label };
}

/** An operation on one record by its id (`episodes.get`, `facts.delete`, ...): its one parameter is the id. */
export function byIdOperation<const M extends string, R>(method: M, name: string, run: (parts: EngineParts, id: string) => Promise<R>) {
  return defineOperation({ method, name, input: [param(idSchema, 'id')], handler: (parts, [id]) => run(parts, id) });
}

/** Lists one user's records of a kind (`episodes.list`, ...): its one parameter is the query. */
export function listOperation<const M extends string, S extends z.ZodMiniType, R>(method: M, name: string, query: S, run: (parts: EngineParts, query: z.output<S>) => Promise<R>) {
  return defineOperation({ method, name, input: [param(query)], handler: (parts, [q]) => run(parts, q) });
}

/** Changes one record by its id (`episodes.update`, ...): the id, then the patch. */
export function updateOperation<const M extends string, S extends z.ZodMiniType, R>(
  method: M,
  name: string,
  patch: S,
  run: (parts: EngineParts, id: string, patch: z.output<S>) => Promise<R>,
) {
  return defineOperation({ method, name, input: [param(idSchema, 'id'), param(patch)], handler: (parts, [id, p]) => run(parts, id, p) });
}
