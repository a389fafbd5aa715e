import { Tokenizer } from '@huggingface/tokenizers';
import type { ModelSource } from '../model-source.js';
import type { BatchTokenizer } from './static-embedder.js';

/**
 * The model's tokenizer, built from its `tokenizer.json` and
 * `tokenizer_config.json` with @huggingface/tokenizers: the library
 * transformers.js's own tokenizers wrap, so the ids are the pipeline's
 * (special tokens added, truncated to `model_max_length`), without loading
 * transformers.js or its ONNX runtime.
 */
export async function loadStaticTokenizer(source: ModelSource): Promise<BatchTokenizer> {
  const [tokenizerJson, configJson] = await Promise.all([source.read('tokenizer.json'), source.read('tokenizer_config.json')]);
  if (!tokenizerJson) throw new Error(`${source.locate('tokenizer.json')} was not found`);
  const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  const config = configJson ? decode(configJson) : {};
  const tokenizer = new Tokenizer(decode(tokenizerJson), config);
  const maxLength = typeof config.model_max_length === 'number' ? config.model_max_length : Infinity;
  return (texts) => {
    const encoded = texts.map((text) => tokenizer.encode(text, { add_special_tokens: true }).ids.slice(0, maxLength));
    const length = Math.max(0, ...encoded.map((ids) => ids.length));
    const ids = new Int32Array(texts.length * length);
    const mask = new Uint8Array(texts.length * length);
    encoded.forEach((row, r) => {
      ids.set(row, r * length);
      mask.fill(1, r * length, r * length + row.length);
    });
    return { input_ids: { data: ids, dims: [texts.length, length] }, attention_mask: { data: mask } };
  };
}
