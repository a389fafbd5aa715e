import type { Embedder } from '../../src/index.js';
import { realEmbedder } from './memory.js';

/**
 * The real model, except for texts given fixed vectors: lets a test place
 * memories at exact cosine similarities (e.g. 0.70 and 0.65 to a query) to
 * check threshold rules. Fixed vectors are built in the plane of two axes:
 * `at(cos)` has cosine `cos` with `axis()`.
 */
export async function tableEmbedder(): Promise<Embedder & { set(text: string, vector: Float32Array): void; axis(): Float32Array; at(cos: number, other?: number): Float32Array }> {
  const base = await realEmbedder();
  const table = new Map<string, Float32Array>();
  const d = base.dimension;
  const unit = (i: number) => {
    const v = new Float32Array(d);
    v[i] = 1;
    return v;
  };
  return {
    id: `${base.id}+table`,
    dimension: d,
    set: (text, vector) => table.set(text, vector),
    axis: () => unit(0),
    /** A unit vector with cosine `cos` to axis(); `other` picks the orthogonal axis (1..d-1). */
    at(cos, other = 1) {
      const v = new Float32Array(d);
      v[0] = cos;
      v[other] = Math.sqrt(Math.max(0, 1 - cos * cos));
      return v;
    },
    async embed(texts) {
      const unknown = texts.filter((t) => !table.has(t));
      const vectors = unknown.length ? await base.embed(unknown) : [];
      const byText = new Map(unknown.map((t, i) => [t, vectors[i]!]));
      return texts.map((t) => table.get(t) ?? byText.get(t)!);
    },
  };
}
