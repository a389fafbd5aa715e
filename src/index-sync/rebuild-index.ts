import { embedTexts } from '../embed/embed-texts.js';
import type { ProgressListener } from '../schema/embedder.js';
import type { EngineContext } from '../engine-context.js';
import { memoryKinds, searchFormOf, type StoredMemory } from '../memories/registry.js';
import type { IndexEntry } from '../search/memory-index.js';
import { loadSnapshot, type SnapshotPages, type StoredSnapshot } from './index-snapshot.js';
import { loadEntries, replayChanges } from './index-loader.js';
import type { PageFileSource } from '../store/page-file-store.js';
import { EMBEDDER_META_KEY, type EmbedderStamp, type VectorKind } from '../schema/records.js';
import { putVectors, vectorAt } from '../store/vector-blocks.js';
import { NO_MARK, WRITE_MARK_KEY } from '../store/write-mark.js';

const REEMBED_BATCH = 256;

/**
 * Opens the index over what IndexedDB holds. If the database's vectors came
 * from another embedder (or it has none yet), every memory is re-embedded,
 * in batches with progress, instead of mixing vector spaces. Records that
 * lost their vector (a crash between versions of engram) are re-embedded too.
 *
 * With `snapshot`, a persisted index snapshot at the store's current write
 * mark, or one the write log brings to it, is loaded instead of the records
 * (index-sync/index-snapshot.ts: `stored` is its rows, read as the
 * engine opened), and the index reports its changes to `snapshot.pages`
 * from then on.
 */
export async function rebuildIndex(
  ctx: EngineContext,
  onProgress?: ProgressListener,
  snapshot?: { pages: SnapshotPages; stored: Promise<StoredSnapshot> },
  pageFiles?: PageFileSource,
): Promise<{ reembedded: number; sameSpace: boolean; fromSnapshot: boolean; replayed: number }> {
  const { db, embedder } = ctx;
  const stamp = (await db.meta.get(EMBEDDER_META_KEY))?.value as EmbedderStamp | undefined;
  const sameSpace = !!stamp && stamp.id === embedder.id && stamp.dimension === embedder.dimension;
  const space: EmbedderStamp = { id: embedder.id, dimension: embedder.dimension };

  onProgress?.({ phase: 'index', progress: 0, message: 'reading memories' });
  const snapshots = snapshot?.pages;
  if (sameSpace && snapshot && snapshots) {
    // Loaded unobserved, then the page layout is restored as saved: nothing is dirty.
    ctx.index.reportChangesTo(undefined);
    ctx.index.clear();
    const { mark, pages, layout, since } = await loadSnapshot(db, space, ctx.index, pageFiles, snapshot.stored);
    if (pages) {
      snapshots.restore(pages, layout);
      ctx.index.reportChangesTo(snapshots);
      // The writes after the snapshot (a tab killed before it saved): their pages are dirty, so the next save writes them.
      replayChanges(ctx.index, since);
      db.writeMark.reset(mark);
      onProgress?.({ phase: 'index', progress: 1, loaded: ctx.index.size, total: ctx.index.size, message: 'index ready (snapshot)' });
      return { reembedded: 0, sameSpace, fromSnapshot: true, replayed: since.length };
    }
  }

  // One read transaction: the records, their vectors and the write mark they are at agree.
  const kinds = memoryKinds();
  const read = await db.transaction('r', [db.meta, ...kinds.map((kind) => db.table(kind.table)), db.vectorBlocks], async () => {
    const mark = ((await db.meta.get(WRITE_MARK_KEY))?.value as string | undefined) ?? NO_MARK;
    const tables = await Promise.all(kinds.map((kind) => db.table(kind.table).toArray() as Promise<StoredMemory[]>));
    const vectors = new Map<string, Float32Array>();
    if (sameSpace) {
      // Large sequential reads are much faster than one get per memory.
      await db.vectorBlocks.each((block) => {
        if (block.kind === 'task' || block.vectors.length !== block.ids.length * embedder.dimension) return;
        block.ids.forEach((id, i) => vectors.set(id, vectorAt(block, i)));
      });
    }
    return { mark, records: tables.flat(), vectors };
  });
  db.writeMark.reset(read.mark);
  const { vectors } = read;
  // Each record's document and indexed text, as its kind defines them (memories/registry.ts).
  const searchable = read.records.map((record) => ({ ...searchFormOf(record), type: record.type })).filter((form) => form.doc !== null);

  const missing = searchable.filter((form) => !vectors.has(form.id));
  if (missing.length > 0) await reembed(ctx, missing, vectors, onProgress, sameSpace ? 'repair' : 'reembed');

  const entries: IndexEntry[] = [];
  for (const { id, doc, text } of searchable) {
    const vector = vectors.get(id);
    if (vector) entries.push({ doc: doc!, text, vector });
  }
  ctx.index.reportChangesTo(snapshots);
  ctx.index.clear();
  loadEntries(ctx.index, entries);
  if (!sameSpace) {
    await db.meta.put({ key: EMBEDDER_META_KEY, value: space satisfies EmbedderStamp });
  }
  onProgress?.({ phase: 'index', progress: 1, loaded: entries.length, total: entries.length, message: 'index ready' });
  return { reembedded: missing.length, sameSpace, fromSnapshot: false, replayed: 0 };
}

async function reembed(
  ctx: EngineContext,
  records: { id: string; type: string; doc: IndexEntry['doc'] | null; text: string }[],
  into: Map<string, Float32Array>,
  onProgress: ProgressListener | undefined,
  why: 'repair' | 'reembed',
): Promise<void> {
  const { db } = ctx;
  // Another embedder's vectors all go at once, so no batch has any to replace (a crash before the last batch
  // leaves the old embedder's stamp, and the next open re-embeds again); a repair only fills vectors that are missing.
  if (why === 'reembed') {
    await ctx.commit('drop the old embedder\'s vectors', ['vectorBlocks'], async () => {
      await db.vectorBlocks.bulkDelete(await db.vectorBlocks.where('kind').anyOf(memoryKinds().map((kind) => kind.type)).primaryKeys());
    });
  }
  for (let start = 0; start < records.length; start += REEMBED_BATCH) {
    const batch = records.slice(start, start + REEMBED_BATCH);
    const vectors = await embedTexts(ctx, batch.map((form) => form.text));
    // A record's vectors are kept under its type (memories/registry.ts), as the commit path's `put` keeps them.
    const entries = batch.map((form, i) => ({ id: form.id, userId: form.doc!.userId, kind: form.type as VectorKind, vector: vectors[i]! }));
    await ctx.commit('store re-embedded vectors', ['vectorBlocks'], () => putVectors(db, entries, { mayExist: [] }));
    batch.forEach((r, i) => into.set(r.id, vectors[i]!));
    onProgress?.({
      phase: 'reembed',
      loaded: Math.min(start + batch.length, records.length),
      total: records.length,
      progress: Math.min(start + batch.length, records.length) / records.length,
      message: why === 'reembed' ? `re-embedding with ${ctx.embedder.id}` : 'restoring missing vectors',
    });
  }
}
