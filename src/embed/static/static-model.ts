import { EmbedderError } from '../../errors.js';
import { readStaticTable, staticTableFile } from './read-static-table.js';
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
  const file = await staticTableFile(localModelPath, model, dtype);
  if (!file) return undefined;
  // The table and the tokenizer are read and built side by side (measured: the model's start on a warm cache is most of createMemory).
  const [table, tokenizer] = await Promise.all([
    readStaticTable(localModelPath, model, file),
    loadStaticTokenizer(localModelPath, model).then(
      (tokenizer) => ({ tokenizer }),
      (cause: unknown) => ({ cause }),
    ),
  ]);
  if (!table) return undefined;
  if (!('tokenizer' in tokenizer)) {
    const cause = tokenizer.cause as Error | undefined;
    throw new EmbedderError(`Could not load the tokenizer of "${model}" from "${localModelPath}": ${cause?.message ?? cause}`, { model, localModelPath });
  }
  return { vocabularySize: table.vocabularySize, embedBatch: async (batch) => embedWithTable(table, tokenizer.tokenizer, batch) };
}
