import type { ResultOf } from '../engine/handlers/table.js';
import type { AnyOperation, GivenArgs, ParsedArgs } from '../operations/operation.js';
import type { EngineRemote } from '../rpc/engine-remote.js';
import { parseInput } from '../schema/parse.js';
import { cancellable, takeSignal } from './call-signal.js';

/**
 * The facade's half of an operation: validates each parameter with its
 * schema (on a plain-data copy, defaults applied: schema/parse.ts) and sends
 * what was validated to the engine's dispatcher under the operation's
 * method. A cancellable operation's `signal` is taken out of its last
 * parameter first, and its abort is forwarded (./call-signal.ts).
 */
export async function forward<O extends AnyOperation>(engine: EngineRemote, operation: O, given: GivenArgs<O['input']>): Promise<ResultOf<O>> {
  const last = operation.input.length - 1;
  let signal: AbortSignal | undefined;
  const args = operation.input.map((param, i) => {
    let value: unknown = given[i];
    if (operation.cancellable && i === last) ({ signal, rest: value } = takeSignal(value, operation.method));
    return parseInput(param.schema, value, param.label === undefined ? operation.method : `${operation.method}: ${param.label}`);
  }) as ParsedArgs<O['input']>;
  const send = (engine as unknown as Record<string, (args: unknown[], callId?: string) => Promise<ResultOf<O>>>)[operation.method]!;
  if (!operation.cancellable) return send(args);
  return cancellable(engine, signal, operation.method, (callId) => send(args, callId));
}

/** `Memory`'s call of an operation (refused once closed, else validated and forwarded), as the method groups of ./episodes-api.ts and its siblings take it. */
export type Invoke = <O extends AnyOperation>(operation: O, ...given: GivenArgs<O['input']>) => Promise<ResultOf<O>>;
