import { NotFoundError } from '../errors.js';
import type { StoredRecord, VectoredKind } from '../memories/registry.js';
import type { EngramDatabase } from './database.js';
import { toStorageError } from './transaction-errors.js';

/** The stored record of `kind` with this id, or NotFoundError; inside the caller's transaction, if any. */
export async function storedRecord<R extends StoredRecord>(db: EngramDatabase, kind: VectoredKind<R>, id: string): Promise<R> {
  const record = (await db.table(kind.table).get(id)) as R | undefined;
  if (record === undefined) throw new NotFoundError(kind.type, id);
  return record;
}

/** `storedRecord` as a call of its own: a failed read is a typed error (StorageError, ClosedError), never the IndexedDB library's. */
export async function readRecord<R extends StoredRecord>(db: EngramDatabase, kind: VectoredKind<R>, id: string): Promise<R> {
  try {
    return await storedRecord(db, kind, id);
  } catch (error) {
    throw toStorageError(error, `read ${kind.type} "${id}"`);
  }
}
