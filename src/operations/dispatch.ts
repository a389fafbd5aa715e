import type { EngineParts } from '../engine/parts.js';
import type { AnyOperation } from './operation.js';
import { OPERATIONS, type OperationMethods } from './table.js';

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

/** Every operation of the table, bound to an open engine's parts. */
export function dispatchOperations(parts: EngineParts): OperationMethods {
  const methods: Record<string, (args: unknown[], callId?: string) => Promise<unknown>> = {};
  for (const operation of OPERATIONS as readonly AnyOperation[]) {
    methods[operation.method] = (args, callId) => runOperation(parts, operation, args, callId);
  }
  return methods as unknown as OperationMethods;
}

/**
 * Runs one operation as its `runs` says (operations/operation.ts). A
 * cancellable one gets the caller's signal, which `abortCall(callId)` fires.
 */
export function runOperation<R>(parts: EngineParts, operation: AnyOperation, args: unknown[], callId: string | undefined): Promise<R> {
  const body = (): Promise<R> =>
    parts.aborts.with(operation.cancellable ? callId : undefined, (caller) => operation.handler(parts, args as never, caller));
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
