import type { ModelSource } from '../model-source.js';
import { readOnnxGraph } from './onnx-reader.js';
import { staticTableFrom, type StaticTable } from './static-table.js';

/** transformers.js's file suffix per dtype (onnx/model<suffix>.onnx). */
const ONNX_SUFFIX: Record<string, string> = { fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4', bnb4: '_bnb4', q4f16: '_q4f16' };

/** Config keys that say the model has transformer layers: then it is not a table, and its ONNX file is not read here. */
const LAYER_KEYS = ['num_hidden_layers', 'n_layer', 'num_layers', 'n_layers'];

/**
 * The ONNX file to read the table of a static embedding model from (the file
 * the pipeline would load for `dtype`), or `undefined` for any other model
 * (a transformer), which then loads on the ONNX runtime.
 */
export function staticTableFile(config: Record<string, unknown>, dtype: string): string | undefined {
  if (LAYER_KEYS.some((key) => key in config)) return undefined;
  const suffix = ONNX_SUFFIX[dtype];
  return suffix === undefined ? undefined : `onnx/model${suffix}.onnx`;
}

/** The table in `file` (from staticTableFile), or `undefined` when it cannot be read or parsed as one. */
export async function readStaticTable(source: ModelSource, file: string): Promise<StaticTable | undefined> {
  const onnx = await source.read(file);
  if (!onnx) return undefined;
  try {
    return staticTableFrom(readOnnxGraph(onnx));
  } catch {
    return undefined;
  }
}
