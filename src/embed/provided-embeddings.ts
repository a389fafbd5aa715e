import type { EngineContext } from '../engine-context.js';
import { ValidationError } from '../errors.js';
import { float32VectorProblem } from '../schema/fact.js';
import { embedTexts } from './embed-texts.js';
import { normalizeInPlace } from './normalize.js';

/**
 * One vector per text: the app's pre-computed embedding where it gave one,
 * the embedder's for the rest (one batch, and no embedder call at all when
 * every text came with its vector). A given embedding must have the
 * embedder's dimension (a ValidationError naming the input otherwise, before
 * anything is written); it is copied onto its own buffer (a view into a
 * larger one would store the whole buffer) and normalised to unit length,
 * exactly like the embedder's output in `embedTexts`. The schema
 * (`embeddingSchema`) has already refused empty, non-finite and all-zero ones;
 * the converted, normalised vector is checked again all the same, so an
 * engine called directly (without the facade's validation) cannot store a
 * vector that scores NaN or has no direction.
 */
export async function vectorsFor(
  ctx: Pick<EngineContext, 'embedder'>,
  items: readonly { text: string; embedding?: Float32Array | readonly number[] }[],
  /** For errors: the public call, and the path of input i's embedding (`embedding`, `3.embedding`). */
  where: { call: string; path: (i: number) => string },
): Promise<Float32Array[]> {
  const { dimension } = ctx.embedder;
  const out = new Array<Float32Array>(items.length);
  const missing: number[] = [];
  items.forEach((item, i) => {
    const given = item.embedding;
    if (!given) return void missing.push(i);
    if (given.length !== dimension) {
      const path = where.path(i);
      const message = `must have exactly ${dimension} numbers, the dimension of the embedder "${ctx.embedder.id}" (it has ${given.length})`;
      throw new ValidationError(`${where.call}: ${path}: ${message}`, [{ path, message }]);
    }
    const vector = normalizeInPlace(new Float32Array(given));
    const problem = float32VectorProblem(vector);
    if (problem) {
      const path = problem.index === undefined ? where.path(i) : `${where.path(i)}.${problem.index}`;
      throw new ValidationError(`${where.call}: ${path}: ${problem.message}`, [{ path, message: problem.message }]);
    }
    out[i] = vector;
  });
  const embedded = await embedTexts(ctx, missing.map((i) => items[i]!.text));
  missing.forEach((i, j) => (out[i] = embedded[j]!));
  return out;
}
