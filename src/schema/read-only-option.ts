import { ValidationError } from '../errors.js';

/** `readOnly` opens a durable store (`directory`) as a snapshot; other stores have no such mode. */
export function readOnlyWithoutDirectory(): ValidationError {
  return new ValidationError('createMemory: `readOnly` opens a durable store on disk as a snapshot, so it needs `directory` (Node).', [
    { path: 'readOnly', message: 'needs directory' },
  ]);
}
