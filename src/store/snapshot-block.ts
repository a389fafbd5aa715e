import type { IndexBatch, MemoryIndex } from '../search/memory-index.js';
import type { IndexDoc } from '../search/index-doc.js';
import type { QuantizedRun } from '../search/vector-matrix.js';
import { encodeDocs, readColumns, type DocColumns } from '../search/doc-columns.js';

/**
 * One block of the index snapshot (index-snapshot.ts): up to BLOCK_SIZE
 * memories as the index holds them, laid out so that loading a block is a
 * few copies rather than per-memory work:
 *
 * - the documents column-wise (search/doc-columns.ts), so structured clone
 *   restores a few typed arrays instead of thousands of objects, and the
 *   index builds a document only when it is read;
 * - the vectors end to end, which the index copies into its matrix in one go;
 * - their int8 copy with its per-row scales and bounds, as the matrix keeps it
 *   (simd/quantized-rows.ts), so opening does not quantise every row again.
 *   It is tagged with its layout and recomputed when that differs (another
 *   version of engram, or an engine that keeps no int8 copy saved it).
 */
export interface SnapshotBlock {
  key: string;
  block: number;
  docs: DocColumns;
  texts: string[];
  /** The block's vectors end to end, `docs.ids.length × dimension` floats. */
  vectors: Float32Array;
  /** Their int8 copy, or null when the saving index kept none. */
  quantized: QuantizedRun | null;
}

/** One block's row, read from the index now; null if one of its memories is no longer indexed. */
export function encodeBlock(index: MemoryIndex, ids: string[], block: number, key: string): SnapshotBlock | null {
  const dimension = index.dimension;
  const vectors = new Float32Array(ids.length * dimension);
  const docs: IndexDoc[] = [];
  const texts: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const vector = index.vector(id);
    const doc = index.doc(id);
    const text = index.text(id);
    if (!vector || !doc || text === undefined) return null;
    vectors.set(vector, i * dimension);
    docs.push(doc);
    texts.push(text);
  }
  return { key, block, docs: encodeDocs(docs), texts, vectors, quantized: index.quantizedRows(ids) ?? null };
}

/** What `MemoryIndex.loadBatch` takes, from a block read back; null when the block does not fit together (ignore the snapshot). */
export function decodeBlock(row: SnapshotBlock, dimension: number): IndexBatch | null {
  const docs = readColumns(row.docs);
  if (!docs) return null;
  const n = docs.size;
  if (row.texts.length !== n || row.vectors.length !== n * dimension) return null;
  const quantized = row.quantized;
  // An int8 copy that does not fit is left out: the matrix then quantises the rows itself.
  const fits = quantized && n > 0 && quantized.rows.length % n === 0 && quantized.unbounded.every((i) => Number.isInteger(i) && i >= 0 && i < n);
  return { docs, texts: row.texts, vectors: row.vectors, quantized: fits ? quantized : undefined };
}
