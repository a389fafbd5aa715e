import type { EngineContext } from '../engine-context.js';
import { EmbedderError, EngramError } from '../errors.js';
import { normalizeInPlace } from './normalize.js';

/**
 * Embeds texts with the engine's embedder and checks what comes back: one
 * vector per text, of the declared dimension, finite. Vectors are normalised
 * so the index can use dot products as cosines.
 */
export async function embedTexts(ctx: Pick<EngineContext, 'embedder'>, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  let vectors: Float32Array[];
  try {
    vectors = await ctx.embedder.embed(texts);
  } catch (cause) {
    if (cause instanceof EngramError) throw cause;
    throw new EmbedderError(`The embedder "${ctx.embedder.id}" failed: ${(cause as Error)?.message ?? String(cause)}`, {
      embedder: ctx.embedder.id,
    });
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new EmbedderError(
      `The embedder "${ctx.embedder.id}" returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts.`,
      { embedder: ctx.embedder.id },
    );
  }
  return vectors.map((v, i) => {
    const vector = v instanceof Float32Array ? new Float32Array(v) : Float32Array.from(v as ArrayLike<number>);
    if (vector.length !== ctx.embedder.dimension) {
      throw new EmbedderError(
        `The embedder "${ctx.embedder.id}" returned a ${vector.length}-dimension vector for text ${i}; it declares ${ctx.embedder.dimension}.`,
        { embedder: ctx.embedder.id },
      );
    }
    for (let j = 0; j < vector.length; j++) {
      if (!Number.isFinite(vector[j]!)) {
        throw new EmbedderError(`The embedder "${ctx.embedder.id}" returned a non-finite value for text ${i}.`, {
          embedder: ctx.embedder.id,
        });
      }
    }
    return normalizeInPlace(vector);
  });
}
