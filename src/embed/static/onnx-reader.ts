/**
 * Just enough of ONNX's protobuf (onnx.proto3) to read a model's graph: its
 * nodes (op type, inputs, outputs, attributes' names) and its initializers
 * (name, dims, element type, bytes). Used to recognise static embedding
 * models (a table look-up exported as ONNX) and read their table without
 * starting the ONNX runtime. Field numbers are onnx.proto's.
 */

export interface OnnxTensor {
  name: string;
  dims: number[];
  /** onnx.TensorProto.DataType: 1 float, 3 int8, 2 uint8, 7 int64, 10 float16... */
  dataType: number;
  /** The raw little-endian bytes (raw_data), or the typed repeated field re-encoded as bytes. */
  bytes: Uint8Array;
}

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  initializers: Map<string, OnnxTensor>;
  inputs: string[];
  outputs: string[];
}

export const ONNX_FLOAT = 1;
export const ONNX_UINT8 = 2;
export const ONNX_INT8 = 3;
export const ONNX_INT64 = 7;

/** One protobuf field: its number, wire type, and value (a varint as bigint, or a byte range). */
interface Field {
  field: number;
  wire: number;
  varint: bigint;
  bytes: Uint8Array;
}

function* fields(buffer: Uint8Array): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= buffer.length) throw new Error('truncated varint');
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === 0) yield { field, wire, varint: varint(), bytes: EMPTY };
    else if (wire === 2) {
      const length = Number(varint());
      if (at + length > buffer.length) throw new Error('truncated field');
      yield { field, wire, varint: 0n, bytes: buffer.subarray(at, at + length) };
      at += length;
    } else if (wire === 5) (yield { field, wire, varint: 0n, bytes: buffer.subarray(at, at + 4) }, (at += 4));
    else if (wire === 1) (yield { field, wire, varint: 0n, bytes: buffer.subarray(at, at + 8) }, (at += 8));
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}
const EMPTY = new Uint8Array(0);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function packedVarints(bytes: Uint8Array): bigint[] {
  const out: bigint[] = [];
  for (const f of fields(prefixAsField(bytes))) out.push(f.varint);
  return out;
}
/** Re-reads a packed varint run as a sequence of field-1 varints (tag 0x08 before each). */
function prefixAsField(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let start = true;
  for (const byte of bytes) {
    if (start) out.push(0x08);
    out.push(byte);
    start = (byte & 0x80) === 0;
  }
  return Uint8Array.from(out);
}

function readTensor(buffer: Uint8Array): OnnxTensor {
  const tensor: OnnxTensor = { name: '', dims: [], dataType: 0, bytes: EMPTY };
  const floats: number[] = [];
  for (const f of fields(buffer)) {
    if (f.field === 1) tensor.dims.push(...(f.wire === 2 ? packedVarints(f.bytes) : [f.varint]).map(Number));
    else if (f.field === 2) tensor.dataType = Number(f.varint);
    else if (f.field === 8) tensor.name = text(f.bytes);
    else if (f.field === 9) tensor.bytes = f.bytes;
    else if (f.field === 4) {
      // float_data: packed (wire 2) or one float per field (wire 5).
      const view = new DataView(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
      for (let i = 0; i + 4 <= f.bytes.byteLength; i += 4) floats.push(view.getFloat32(i, true));
    } else if (f.field === 5 || f.field === 7) {
      // int32_data (int8/uint8/... stored widened) or int64_data.
      const values = f.wire === 2 ? packedVarints(f.bytes) : [f.varint];
      if (tensor.dataType === ONNX_INT64 || f.field === 7) {
        const out = new BigInt64Array(values.length);
        values.forEach((v, i) => (out[i] = BigInt.asIntN(64, v)));
        tensor.bytes = concat(tensor.bytes, new Uint8Array(out.buffer));
      } else {
        tensor.bytes = concat(tensor.bytes, Uint8Array.from(values.map((v) => Number(BigInt.asIntN(32, v)) & 0xff)));
      }
    }
  }
  if (floats.length > 0) tensor.bytes = new Uint8Array(Float32Array.from(floats).buffer);
  return tensor;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function readNode(buffer: Uint8Array): OnnxNode {
  const node: OnnxNode = { opType: '', inputs: [], outputs: [] };
  for (const f of fields(buffer)) {
    if (f.field === 1) node.inputs.push(text(f.bytes));
    else if (f.field === 2) node.outputs.push(text(f.bytes));
    else if (f.field === 4) node.opType = text(f.bytes);
  }
  return node;
}

/** The name of a graph input or output (ValueInfoProto.name, field 1). */
function valueName(buffer: Uint8Array): string {
  for (const f of fields(buffer)) if (f.field === 1) return text(f.bytes);
  return '';
}

/** Reads a serialised onnx.ModelProto's graph. Throws on bytes that are not one. */
export function readOnnxGraph(model: Uint8Array): OnnxGraph {
  let graphBytes: Uint8Array | undefined;
  for (const f of fields(model)) if (f.field === 7 && f.wire === 2) graphBytes = f.bytes;
  if (!graphBytes) throw new Error('no graph in the ONNX model');
  const graph: OnnxGraph = { nodes: [], initializers: new Map(), inputs: [], outputs: [] };
  for (const f of fields(graphBytes)) {
    if (f.wire !== 2) continue;
    if (f.field === 1) graph.nodes.push(readNode(f.bytes));
    else if (f.field === 5) {
      const tensor = readTensor(f.bytes);
      graph.initializers.set(tensor.name, tensor);
    } else if (f.field === 11) graph.inputs.push(valueName(f.bytes));
    else if (f.field === 12) graph.outputs.push(valueName(f.bytes));
  }
  return graph;
}
