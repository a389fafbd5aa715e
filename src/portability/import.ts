import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { ImportError } from '../errors.js';
import type { MemoryRecord } from '../recall/recall.js';
import { indexDocOf } from '../search/index-doc.js';
import { indexedText } from '../search/indexed-text.js';
import { findIdConflict, KIND_NAMES, type IdSpaceTable } from '../store/unique-ids.js';
import { putVectors } from '../store/vector-blocks.js';
import { parseExport } from './export-format.js';
import { placeImportedTurns } from './place-imported-turns.js';

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
 * (episodes, facts, turns and tasks share one id space) is an ImportError and
 * nothing is written. Imported turns keep their own order within their
 * session (place-imported-turns.ts).
 */
export async function importData(ctx: EngineContext, text: string): Promise<ImportSummary> {
  const contents = parseExport(text);
  const { db, embedder } = ctx;
  const sameSpace = contents.header.embedder?.id === embedder.id && contents.header.embedder.dimension === embedder.dimension;
  const records: MemoryRecord[] = [...contents.episodes, ...contents.facts, ...contents.turns];
  const vectors = new Map<string, Float32Array>();
  const needEmbedding: MemoryRecord[] = [];
  for (const record of records) {
    const v = sameSpace ? contents.vectors.get(record.id) : undefined;
    if (v && v.length === embedder.dimension) vectors.set(record.id, v);
    else if (indexDocOf(record)) needEmbedding.push(record);
  }
  const fresh = await embedTexts(ctx, needEmbedding.map(indexedText));
  needEmbedding.forEach((r, i) => vectors.set(r.id, fresh[i]!));

  const completed = contents.tasks.filter((t) => t.status === 'completed');
  const taskVectors = await embedTexts(ctx, completed.map((t) => t.description || ' '));
  await ctx.commit('import', ['episodes', 'facts', 'turns', 'profiles', 'vectorBlocks', 'tasks', 'steps', 'patterns'], async () => {
    const ids = new Map<IdSpaceTable, string[]>([
      ['episodes', contents.episodes.map((r) => r.id)],
      ['facts', contents.facts.map((r) => r.id)],
      ['turns', contents.turns.map((r) => r.id)],
      ['tasks', contents.tasks.map((r) => r.id)],
    ]);
    const conflict = await findIdConflict(db, ids);
    if (conflict) {
      throw new ImportError(
        `The export's ${KIND_NAMES[conflict.written].split(' ')[1]} "${conflict.id}" has an id that is already used by ${KIND_NAMES[conflict.heldBy]} in this memory (episodes, facts, turns and tasks share one id space). Nothing was imported.`,
        { id: conflict.id, kind: conflict.written, heldBy: conflict.heldBy },
      );
    }
    const turns = await placeImportedTurns(db, contents.turns);
    await db.episodes.bulkPut(contents.episodes);
    await db.facts.bulkPut(contents.facts);
    await db.turns.bulkPut(turns);
    await db.profiles.bulkPut(contents.profiles);
    await db.tasks.bulkPut(contents.tasks);
    await db.steps.bulkPut(contents.steps);
    await db.patterns.bulkPut(contents.patterns);
    // Imported records overwrite stored ones with the same ids; putVectors replaces their vectors too.
    await putVectors(db, [
      ...completed.map((t, i) => ({ id: t.id, userId: t.userId, kind: 'task' as const, vector: taskVectors[i]! })),
      ...records.filter((r) => vectors.has(r.id)).map((r) => ({ id: r.id, userId: r.userId, kind: r.type, vector: vectors.get(r.id)! })),
    ]);
  });
  return { episodes: contents.episodes.length, facts: contents.facts.length, turns: contents.turns.length, profiles: contents.profiles.length, tasks: contents.tasks.length, reembedded: needEmbedding.length };
}
