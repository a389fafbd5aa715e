import { EmbedderError } from '../../errors.js';
import { readStaticTable } from './read-static-table.js';
import { embedWithTable } from './static-embedder.js';
import { loadStaticTokenizer } from './static-tokenizer.js';

/**
 * A local static model ready to embed (its table and its tokenizer), or
 * `undefined` when the model is not a static one. Loaded with a dynamic
 * import by ../transformers-embedder.ts, so a page that never embeds does not
 * carry the tokenizer.
 */
export async function loadStaticModel(
  localModelPath: string,
  model: string,
  dtype: string,
): Promise<{ vocabularySize: number; embedBatch(batch: string[]): Promise<Float32Array[]> } | undefined> {
  const table = await readStaticTable(localModelPath, model, dtype);
  if (!table) return undefined;
  try {
    const tokenizer = await loadStaticTokenizer(localModelPath, model);
    return { vocabularySize: table.vocabularySize, embedBatch: async (batch) => embedWithTable(table, tokenizer, batch) };
  } catch (cause) {
    throw new EmbedderError(`Could not load the tokenizer of "${model}" from "${localModelPath}": ${(cause as Error)?.message ?? cause}`, { model, localModelPath });
  }
}
