import { EmbedderError, EngramError } from '../../errors.js';
import type { ModelSource } from '../model-source.js';
import { readStaticTable, staticTableFile } from './read-static-table.js';
import { embedWithTable } from './static-embedder.js';
import { loadStaticTokenizer } from './static-tokenizer.js';

/**
 * A static model ready to embed (its table and its tokenizer), or
 * `undefined` when the model is not a static one. Loaded with a dynamic
 * import by ../transformers-embedder.ts, so a page that never embeds does not
 * carry the tokenizer.
 */
export async function loadStaticModel(
  source: ModelSource,
  config: Record<string, unknown>,
  dtype: string,
): Promise<{ vocabularySize: number; embedBatch(batch: string[]): Promise<Float32Array[]> } | undefined> {
  const file = staticTableFile(config, dtype);
  if (!file) return undefined;
  // The table and the tokenizer are read and built side by side: on a warm cache the model's start is what createMemory waits for longest.
  const [table, tokenizer] = await Promise.all([
    readStaticTable(source, file).then(
      (table) => ({ table }),
      (cause: unknown) => ({ cause }),
    ),
    loadStaticTokenizer(source).then(
      (tokenizer) => ({ tokenizer }),
      (cause: unknown) => ({ cause }),
    ),
  ]);
  if (!('table' in table)) throw unreadable(source, file, table.cause);
  if (!table.table) return undefined;
  if (!('tokenizer' in tokenizer)) throw unreadable(source, 'tokenizer.json', tokenizer.cause);
  const { table: rows } = table;
  return { vocabularySize: rows.vocabularySize, embedBatch: async (batch) => embedWithTable(rows, tokenizer.tokenizer, batch) };
}

function unreadable(source: ModelSource, file: string, cause: unknown): EmbedderError {
  const why = (cause as Error)?.message ?? String(cause);
  return new EmbedderError(`Could not load ${file} of "${source.model}" from ${source.locate(file)}: ${why}. engram reads a model from ${source.layout}.`, {
    reason: cause instanceof EngramError ? (cause.details.reason ?? 'model-unreadable') : 'model-unreadable',
    model: source.model,
    url: source.locate(file),
  });
}
