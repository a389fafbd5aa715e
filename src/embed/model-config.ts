import { EmbedderError, EngramError } from '../errors.js';
import type { ModelSource } from './model-source.js';

/**
 * The model's `config.json`, read first: it says whether the model is a
 * static table (read without the ONNX runtime) or a transformer, and whether
 * there is a model there at all. A path that serves no model (a wrong
 * `localModelPath`, a folder that does not exist, a dev server answering
 * index.html) is an EmbedderError that names what was tried and the layout
 * expected, instead of a parse error from deep inside transformers.js.
 * `undefined` only when the file is absent and `required` is false (a model
 * that may still come from the hub).
 */
export async function readModelConfig(source: ModelSource, required: boolean): Promise<Record<string, unknown> | undefined> {
  const url = source.locate('config.json');
  let bytes: Uint8Array | undefined;
  try {
    bytes = await source.read('config.json');
  } catch (cause) {
    const why = cause instanceof EngramError ? cause.message : `${url} could not be read (${(cause as Error)?.message ?? cause})`;
    throw noModel(source, why, cause instanceof EngramError && cause.details.reason === 'not-a-model' ? 'not-a-model' : 'model-unreadable');
  }
  if (!bytes) {
    if (!required) return undefined;
    throw noModel(source, `${url} was not found${await missingFolder(source)}.`, 'model-not-found');
  }
  try {
    const config = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    if (typeof config === 'object' && config !== null && !Array.isArray(config)) return config as Record<string, unknown>;
  } catch {
    // Reported below, as for any other config.json that is not a JSON object.
  }
  throw noModel(source, `${url} is not a model's config.json (not a JSON object).`, 'not-a-model');
}

function noModel(source: ModelSource, why: string, reason: string): EmbedderError {
  return new EmbedderError(`No embedding model "${source.model}" at ${source.where}: ${why} engram reads a model from ${source.layout}.`, {
    reason,
    model: source.model,
    url: source.locate('config.json'),
  });
}

/** In Node, which folder on the way is missing: the commonest mistake is a wrong `localModelPath`. */
async function missingFolder(source: ModelSource): Promise<string> {
  const problem = await source.folderProblem?.().catch(() => undefined);
  return problem ? ` (${problem})` : '';
}
