import type { EngineContext } from '../engine-context.js';
import type { Episode } from '../schema/episode.js';
import type { Fact } from '../schema/fact.js';
import { indexDocOf } from '../search/index-doc.js';

/**
 * Mirrors committed writes into the in-memory index. Call only after the
 * transaction that wrote them has committed, so the index never shows a
 * memory IndexedDB does not have.
 */
export function applyWritten(ctx: EngineContext, written: { record: Episode | Fact; vector?: Float32Array }[]): void {
  for (const { record, vector } of written) {
    const doc = indexDocOf(record);
    if (!doc) {
      ctx.index.remove(record.id);
      continue;
    }
    const v = vector ?? ctx.index.vector(record.id);
    if (v) ctx.index.upsert({ doc, text: record.text, vector: v });
  }
}

export function applyDeleted(ctx: EngineContext, ids: Iterable<string>): void {
  for (const id of ids) ctx.index.remove(id);
}
