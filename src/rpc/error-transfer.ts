import * as Comlink from 'comlink';
import { deserializeError, serializeError, type SerializedError } from '../errors.js';

/**
 * Comlink's default error transfer keeps only name, message and stack. This
 * one keeps engram's typed errors (class, code, details) across the worker
 * boundary, so `instanceof ValidationError` works on the page. Both the page
 * and the worker call `installErrorTransfer()` (an explicit call, not an
 * import side effect, so bundlers cannot drop it).
 */
type ThrownValue = { value: unknown };

export function installErrorTransfer(): void {
  Comlink.transferHandlers.set('throw', {
    canHandle: (value: unknown): value is ThrownValue => typeof value === 'object' && value !== null && isThrown(value),
    serialize: ({ value }: ThrownValue) => [{ isError: true, value: serializeError(value) }, []],
    deserialize: (serialized: { value: SerializedError }) => {
      throw deserializeError(serialized.value);
    },
  } as unknown as Comlink.TransferHandler<unknown, unknown>);
}

/** Comlink wraps thrown values with a private symbol; recognise it by its description. */
function isThrown(value: object): boolean {
  return Object.getOwnPropertySymbols(value).some((symbol) => symbol.description === 'Comlink.thrown');
}
