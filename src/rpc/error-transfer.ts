import * as Comlink from 'comlink';
import { deserializeError, serializeError, type SerializedError } from '../errors.js';

/**
 * Comlink's default error transfer keeps only name, message and stack. This
 * one keeps engram's typed errors (class, code, details) across the worker
 * boundary, so `instanceof ValidationError` works on the page. Importing the
 * module installs it; both the page and the worker import it.
 */
type ThrownValue = { value: unknown };

Comlink.transferHandlers.set('throw', {
  canHandle: (value: unknown): value is ThrownValue => typeof value === 'object' && value !== null && isThrown(value),
  serialize: ({ value }: ThrownValue) => [{ isError: true, value: serializeError(value) }, []],
  deserialize: (serialized: { value: SerializedError }) => {
    throw deserializeError(serialized.value);
  },
} as unknown as Comlink.TransferHandler<unknown, unknown>);

/** Comlink wraps thrown values with a private symbol; recognise it by its description. */
function isThrown(value: object): boolean {
  return Object.getOwnPropertySymbols(value).some((symbol) => symbol.description === 'Comlink.thrown');
}
