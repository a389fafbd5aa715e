import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { ImportError } from '../errors.js';
import { memoryKinds, TASK_RECORDS, type StoredMemory } from '../memories/registry.js';
import { findIdConflict, idSpaceNames } from '../store/unique-ids.js';
import { parseExport } from './export-format.js';
import { placeImported } from './place-imported.js';

/**
 * What `memory.import()` wrote: the number of records of each kind, and how many memories were embedded again (no vector in the file, or one from another embedder).
 */
export interface ImportSummary {
  episodes: number;
  facts: number;
  turns: number;
  profiles: number;
  tasks: number;
  reembedded: number;
}

/**
 * Imports an export: every line validated against its record schema before
 * anything is written, embedded where vectors are missing or from another
 * embedder, then written in one commit. Records with existing ids of the
 * same kind are overwritten; an id that a stored record of another kind holds
 * (the memory kinds and tasks share one id space) is an ImportError and
 * nothing is written. Imported records of a kind with a sequence (turns)
 * keep their own order within their session (place-imported.ts).
 */
export async function importData(ctx: EngineContext, text: string): Promise<ImportSummary> {
  const contents = parseExport(text);
  const { db, embedder } = ctx;
  const kinds = memoryKinds();
  const sameSpace = contents.header.embedder?.id === embedder.id && contents.header.embedder.dimension === embedder.dimension;
  const vectors = new Map<string, Float32Array>();
  const needEmbedding: { record: StoredMemory; text: string }[] = [];
  for (const kind of kinds) {
    for (const record of contents.memories.get(kind.type) ?? []) {
      const v = sameSpace ? contents.vectors.get(record.id) : undefined;
      if (v && v.length === embedder.dimension) vectors.set(record.id, v);
      else if (kind.searchable(record)) needEmbedding.push({ record, text: kind.indexedText(record) });
    }
  }
  const fresh = await embedTexts(ctx, needEmbedding.map((item) => item.text));
  needEmbedding.forEach((item, i) => vectors.set(item.record.id, fresh[i]!));

  const completed = contents.tasks.filter((t) => TASK_RECORDS.searchable(t));
  const taskVectors = await embedTexts(ctx, completed.map((t) => t.description || ' '));
  await ctx.commit('import', [...kinds, 'profiles', TASK_RECORDS, 'steps', 'patterns'], async (scope) => {
    const ids = new Map(kinds.map((kind) => [kind.table, (contents.memories.get(kind.type) ?? []).map((r) => r.id)]));
    ids.set(TASK_RECORDS.table, contents.tasks.map((t) => t.id));
    const conflict = await findIdConflict(db, ids);
    if (conflict) {
      throw new ImportError(
        `The export's ${conflict.written.type} "${conflict.id}" has an id that is already used by ${conflict.heldBy.label} in this memory (${idSpaceNames()} share one id space). Nothing was imported.`,
        { id: conflict.id, kind: conflict.written.table, heldBy: conflict.heldBy.table },
      );
    }
    // Imported records overwrite stored ones with the same ids, their vectors too.
    for (const kind of kinds) await scope.put(kind, await placeImported(db, kind, contents.memories.get(kind.type) ?? []), vectors);
    await db.profiles.bulkPut(contents.profiles);
    await scope.put(TASK_RECORDS, contents.tasks, new Map(completed.map((t, i) => [t.id, taskVectors[i]!])));
    await db.steps.bulkPut(contents.steps);
    await db.patterns.bulkPut(contents.patterns);
  });
  const counts = Object.fromEntries(kinds.map((kind) => [kind.table, contents.memories.get(kind.type)?.length ?? 0]));
  return { ...counts, profiles: contents.profiles.length, tasks: contents.tasks.length, reembedded: needEmbedding.length } as ImportSummary;
}
