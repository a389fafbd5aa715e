import type { Table } from 'dexie';
import type { EngineContext } from '../engine-context.js';
import { EMBEDDER_META_KEY, type EmbedderStamp } from '../schema/records.js';
import type { ExportOptions } from '../schema/query.js';
import { unpackBlocks } from '../store/vector-blocks.js';
import { EXPORT_FORMAT, EXPORT_VERSION, serializeExport } from './export-format.js';

/** A versioned JSON Lines export of one user or the whole store, read in one transaction (see export-format.ts). */
export async function exportData(ctx: EngineContext, options: ExportOptions = {}): Promise<string> {
  const { db } = ctx;
  const includeVectors = options.vectors ?? true;
  const snapshot = await db.transaction('r', [db.episodes, db.facts, db.turns, db.profiles, db.vectorBlocks, db.meta, db.tasks, db.steps, db.patterns], async () => {
    const byUser = options.userId;
    const of = <T,>(table: Table<T, string>) => (byUser !== undefined ? table.where('userId').equals(byUser).toArray() : table.toArray());
    const episodes = await of(db.episodes);
    const facts = await of(db.facts);
    const turns = await of(db.turns);
    const profiles = await of(db.profiles);
    const tasks = await of(db.tasks);
    const steps = byUser !== undefined ? await db.steps.where('taskId').anyOf(tasks.map((t) => t.id)).toArray() : await db.steps.toArray();
    const patterns = await of(db.patterns);
    const vectors = new Map<string, Float32Array>();
    if (includeVectors) {
      for (const row of unpackBlocks(await of(db.vectorBlocks))) if (row.kind !== 'task') vectors.set(row.id, row.vector);
    }
    const stamp = (await db.meta.get(EMBEDDER_META_KEY))?.value as EmbedderStamp | undefined;
    return { episodes, facts, turns, profiles, tasks, steps, patterns, vectors, stamp };
  });
  return serializeExport({
    header: {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: ctx.now(),
      userId: options.userId ?? null,
      embedder: includeVectors && snapshot.stamp ? snapshot.stamp : null,
    },
    episodes: snapshot.episodes,
    facts: snapshot.facts,
    turns: snapshot.turns,
    profiles: snapshot.profiles,
    tasks: snapshot.tasks,
    steps: snapshot.steps,
    patterns: snapshot.patterns,
    vectors: snapshot.vectors,
  });
}
