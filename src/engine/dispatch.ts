import type { AnyOperation, ParsedArgs } from '../operations/operation.js';
import { OPERATIONS, type TableOperation } from '../operations/table.js';
import { HANDLERS, type ResultOf } from './handlers/table.js';
import type { EngineParts } from './parts.js';

/** The engine side of every operation, by its public method: parsed arguments in, the result out (`callId` names a cancellable call). */
export type OperationMethods = {
  [O in TableOperation as O['method']]: (args: ParsedArgs<O['input']>, callId?: string) => Promise<ResultOf<O>>;
};

/**
 * What the facade calls: every operation by its public method, plus the two
 * calls about the engine itself. In a worker this object is what Comlink
 * exposes; the page holds a `Comlink.Remote` of it (rpc/engine-remote.ts).
 */
export type EngineDispatcher = OperationMethods & {
  /** Aborts the cancellable call named `callId`; a call already settled is not affected. */
  abortCall(callId: string, reason: string): void;
  /** Stops taking work, lets in-flight calls finish (up to `timeoutMs`), then closes the database. */
  close(options: { timeoutMs?: number }): Promise<void>;
};

/** A handler as the dispatcher holds it: arguments already parsed by the facade. */
export type AnyHandler = (parts: EngineParts, args: unknown[], caller: AbortSignal | undefined) => Promise<unknown>;

/** Every operation of the table, bound to an open engine's parts. */
export function dispatchOperations(parts: EngineParts): OperationMethods {
  const methods: Record<string, (args: unknown[], callId?: string) => Promise<unknown>> = {};
  const handlers = HANDLERS as unknown as Record<string, AnyHandler>;
  for (const operation of OPERATIONS as readonly AnyOperation[]) {
    const handler = handlers[operation.method]!;
    methods[operation.method] = (args, callId) => runOperation(parts, operation, handler, args, callId);
  }
  return methods as unknown as OperationMethods;
}

/**
 * Runs one operation as its `runs` says (operations/operation.ts). A
 * cancellable one gets the caller's signal, which `abortCall(callId)` fires.
 */
export function runOperation(parts: EngineParts, operation: AnyOperation, handler: AnyHandler, args: unknown[], callId: string | undefined): Promise<unknown> {
  const body = (): Promise<unknown> => parts.aborts.with(operation.cancellable ? callId : undefined, (caller) => handler(parts, args, caller));
  switch (operation.runs) {
    case 'untracked':
      return body();
    case 'tracked':
      return parts.calls.run(operation.name, body);
    case 'after-access-times':
      return parts.calls.run(operation.name, async () => {
        await parts.access.settle();
        return body();
      });
  }
}
