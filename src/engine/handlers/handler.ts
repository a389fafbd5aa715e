import type { AnyOperation, ParsedArgs } from '../../operations/operation.js';
import type { EngineParts } from '../parts.js';

/**
 * What an operation does, given the engine's parts and its parsed
 * arguments; `caller` is the app's AbortSignal for a cancellable operation.
 */
export type Handler<O extends AnyOperation> = (parts: EngineParts, args: ParsedArgs<O['input']>, caller: AbortSignal | undefined) => Promise<unknown>;

/**
 * One handler per operation of a group, keyed by its public method: a
 * handler table written with `satisfies HandlersOf<typeof GROUP>` fails to
 * compile when it misses an operation or names one that does not exist,
 * and keeps each handler's own result type (which the facade's methods
 * return: `ResultOf`, engine/handlers/table.ts).
 */
export type HandlersOf<Group extends readonly AnyOperation[]> = {
  [O in Group[number] as O['method']]: Handler<O>;
};
