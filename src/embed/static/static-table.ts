import { ONNX_FLOAT, ONNX_INT8, ONNX_UINT8, type OnnxGraph, type OnnxTensor } from './onnx-reader.js';

/**
 * A static embedding model (Model2Vec and the like): each token id has one
 * row, and a text's embedding is the normalised, weighted mean of its
 * tokens' rows. This is the ONNX graph such models are exported as
 * (Gather of a table by `input_ids`, optionally DequantizeLinear and a
 * per-token weight, times `attention_mask`) computed directly: no ONNX
 * runtime, so the model is ready as soon as its files are read.
 */
export interface StaticTable {
  vocabularySize: number;
  dimension: number;
  /** Adds `weight` × row(id) into `into`. */
  addRow(id: number, weight: number, into: Float64Array): void;
  /** The graph's per-token factor (1 when the graph has none; 0 drops the token). */
  tokenWeight(id: number): number;
}

/** The only operators a table look-up graph uses; anything else (attention, MatMul...) is a transformer. */
const TABLE_OPS = new Set(['Gather', 'DequantizeLinear', 'Cast', 'Mul', 'Unsqueeze', 'Identity']);

/**
 * Recognises a static embedding graph and returns its table, or `undefined`
 * for any other model (which then runs on the ONNX runtime as before).
 */
export function staticTableFrom(graph: OnnxGraph): StaticTable | undefined {
  if (graph.nodes.length === 0 || graph.nodes.some((node) => !TABLE_OPS.has(node.opType))) return undefined;
  const idsInput = graph.inputs.find((name) => name === 'input_ids');
  if (!idsInput) return undefined;
  const gathers = graph.nodes.filter((node) => node.opType === 'Gather' && node.inputs[1] === idsInput && graph.initializers.has(node.inputs[0]!));
  const tableGather = gathers.find((node) => graph.initializers.get(node.inputs[0]!)!.dims.length === 2);
  if (!tableGather) return undefined;
  const table = graph.initializers.get(tableGather.inputs[0]!)!;
  const [vocabularySize, dimension] = table.dims as [number, number];
  if (!(vocabularySize > 0 && dimension > 0)) return undefined;

  const dequantize = graph.nodes.find((node) => node.opType === 'DequantizeLinear' && node.inputs[0] === tableGather.outputs[0]);
  const scale = dequantize ? scalar(graph.initializers.get(dequantize.inputs[1] ?? '')) : 1;
  const zeroPoint = dequantize ? (dequantize.inputs[2] ? scalar(graph.initializers.get(dequantize.inputs[2])) : 0) : 0;
  if (scale === undefined || zeroPoint === undefined) return undefined;

  const weightGather = gathers.find((node) => node !== tableGather && graph.initializers.get(node.inputs[0]!)!.dims.length === 1);
  const weights = weightGather ? floats(graph.initializers.get(weightGather.inputs[0]!)!) : undefined;
  if (weightGather && (!weights || weights.length !== vocabularySize)) return undefined;

  const rows = rowValues(table, vocabularySize * dimension);
  if (!rows) return undefined;
  return {
    vocabularySize,
    dimension,
    tokenWeight: (id) => (weights ? weights[id]! : 1),
    addRow(id, weight, into) {
      const factor = weight * scale;
      const start = id * dimension;
      for (let d = 0; d < dimension; d++) into[d]! += factor * (rows[start + d]! - zeroPoint);
    },
  };
}

function rowValues(tensor: OnnxTensor, count: number): Int8Array | Uint8Array | Float32Array | undefined {
  const { bytes } = tensor;
  if (tensor.dataType === ONNX_INT8 && bytes.byteLength === count) return new Int8Array(bytes.buffer, bytes.byteOffset, count);
  if (tensor.dataType === ONNX_UINT8 && bytes.byteLength === count) return bytes;
  if (tensor.dataType === ONNX_FLOAT && bytes.byteLength === count * 4) return floats(tensor);
  return undefined;
}

function floats(tensor: OnnxTensor): Float32Array | undefined {
  if (tensor.dataType !== ONNX_FLOAT || tensor.bytes.byteLength % 4 !== 0) return undefined;
  // Copied into a fresh buffer: the bytes may sit at an offset that is not a
  // multiple of 4, and a Node Buffer's slice() is a view of a shared pool.
  return new Float32Array(new Uint8Array(tensor.bytes).buffer);
}

function scalar(tensor: OnnxTensor | undefined): number | undefined {
  if (!tensor || tensor.dims.some((d) => d !== 1)) return undefined;
  if (tensor.dataType === ONNX_FLOAT) return floats(tensor)?.[0];
  if (tensor.dataType === ONNX_INT8) return new Int8Array(tensor.bytes.buffer, tensor.bytes.byteOffset, 1)[0];
  if (tensor.dataType === ONNX_UINT8) return tensor.bytes[0];
  return undefined;
}
