import type { Table } from 'dexie';
import type { EngineContext } from '../engine-context.js';
import { memoryKinds, TASK_RECORDS, type StoredMemory } from '../memories/registry.js';
import { EMBEDDER_META_KEY, type EmbedderStamp } from '../schema/records.js';
import type { ExportOptions } from '../schema/query.js';
import { unpackBlocks } from '../store/vector-blocks.js';
import { EXPORT_FORMAT, EXPORT_VERSION, serializeExport } from './export-format.js';

/** A versioned JSON Lines export of one user or the whole store, read in one transaction (see export-format.ts): every memory kind's records, profiles, tasks and vectors. */
export async function exportData(ctx: EngineContext, options: ExportOptions = {}): Promise<string> {
  const { db } = ctx;
  const includeVectors = options.vectors ?? true;
  const kinds = memoryKinds();
  const tables = [...kinds.map((kind) => db.table(kind.table)), db.profiles, db.vectorBlocks, db.meta, db.tasks, db.steps, db.patterns];
  const snapshot = await db.transaction('r', tables, async () => {
    const byUser = options.userId;
    const of = <T,>(table: Table<T, string>) => (byUser !== undefined ? table.where('userId').equals(byUser).toArray() : table.toArray());
    const memories = new Map<string, StoredMemory[]>();
    for (const kind of kinds) memories.set(kind.type, await of(db.table<StoredMemory, string>(kind.table)));
    const profiles = await of(db.profiles);
    const tasks = await of(db.tasks);
    const steps = byUser !== undefined ? await db.steps.where('taskId').anyOf(tasks.map((t) => t.id)).toArray() : await db.steps.toArray();
    const patterns = await of(db.patterns);
    const vectors = new Map<string, Float32Array>();
    if (includeVectors) {
      for (const row of unpackBlocks(await of(db.vectorBlocks))) if (row.kind !== TASK_RECORDS.type) vectors.set(row.id, row.vector);
    }
    const stamp = (await db.meta.get(EMBEDDER_META_KEY))?.value as EmbedderStamp | undefined;
    return { memories, profiles, tasks, steps, patterns, vectors, stamp };
  });
  const { stamp, ...contents } = snapshot;
  return serializeExport({
    header: {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: ctx.now(),
      userId: options.userId ?? null,
      embedder: includeVectors && stamp ? stamp : null,
    },
    ...contents,
  });
}
