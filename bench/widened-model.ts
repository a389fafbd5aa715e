/**
 * A wider static model for benchmarks, made from the offline 128-d one: no
 * 384-d model is on this machine, and the cold-start target has a
 * 384-d figure. Each token's row becomes `copies` permutations of itself
 * side by side (a fixed, seeded permutation per copy), so every embedding
 * is the 128-d one mapped into copies × 128 dimensions by an orthogonal map
 * (up to the common 1/√copies the normalisation absorbs): the same cosines
 * and the same neighbours, with a table, a query vector, a scan and stored
 * vector pages `copies` times as wide. It measures what the width costs,
 * not what a better model would retrieve. Written into `outDir` (the bench's
 * temporary model folder), never shipped.
 *
 * The ONNX file is the source graph with its table initializer replaced
 * (dims and int8 bytes); everything else is copied byte for byte. Only
 * engram's static path reads it (src/embed/static/): the graph's declared
 * output shape still says 128, so the ONNX runtime would refuse it.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from './synthetic.js';

const ONNX_INT8 = 3;
const TABLE_FILE = 'onnx/model_quantized.onnx';
const COPIED = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'];

/** Writes `<outDir>/<name>` from the model at `<sourceDir>/<model>`; returns the widened model's name for `embedder.model`. */
export function writeWidenedModel(options: { sourceDir: string; model: string; outDir: string; name: string; copies: number }): string {
  const { sourceDir, model, outDir, name, copies } = options;
  if (!Number.isInteger(copies) || copies < 1) throw new Error(`copies must be a positive integer, not ${copies}`);
  const from = join(sourceDir, model);
  const to = join(outDir, name);
  mkdirSync(join(to, 'onnx'), { recursive: true });
  for (const file of COPIED) copyFileSync(join(from, file), join(to, file));
  const config = JSON.parse(readFileSync(join(from, 'config.json'), 'utf8')) as { hidden_size?: number };
  const widened = widenGraph(new Uint8Array(readFileSync(join(from, TABLE_FILE))), copies);
  writeFileSync(join(to, 'config.json'), JSON.stringify({ ...config, hidden_size: widened.dimension }, null, 2));
  writeFileSync(join(to, TABLE_FILE), widened.bytes);
  return name;
}

/** The ModelProto with its graph's two-dimensional int8 table widened; the new width. */
function widenGraph(model: Uint8Array, copies: number): { bytes: Uint8Array; dimension: number } {
  let dimension = 0;
  // ModelProto.graph = 7; GraphProto.initializer = 5.
  const bytes = rewrite(model, 7, (graph) =>
    rewrite(graph, 5, (tensor) => {
      const widened = widenTable(tensor, copies);
      if (widened) dimension = widened.dimension;
      return widened?.bytes ?? tensor;
    }),
  );
  if (dimension === 0) throw new Error('no two-dimensional int8 table found in the source graph');
  return { bytes, dimension };
}

/** A TensorProto [rows, d] int8 as [rows, d × copies], each copy a fixed permutation of the row; undefined for any other tensor. */
function widenTable(tensor: Uint8Array, copies: number): { bytes: Uint8Array; dimension: number } | undefined {
  const dims: number[] = [];
  let dataType = 0;
  let name: Uint8Array | undefined;
  let raw: Uint8Array | undefined;
  for (const f of fields(tensor)) {
    if (f.field === 1) dims.push(...(f.wire === 0 ? [f.varint] : packed(f.payload)));
    else if (f.field === 2) dataType = f.varint;
    else if (f.field === 8) name = f.payload;
    else if (f.field === 9) raw = f.payload;
  }
  if (dims.length !== 2 || dataType !== ONNX_INT8 || !name || !raw) return undefined;
  const [rows, width] = dims as [number, number];
  if (raw.length !== rows * width) return undefined;
  const random = rng(384);
  const permutations = Array.from({ length: copies }, (_, copy) => {
    const order = Array.from({ length: width }, (_, i) => i);
    // The first copy is the row itself; the others are Fisher-Yates shuffles.
    if (copy > 0)
      for (let i = width - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
    return order;
  });
  const wide = new Uint8Array(rows * width * copies);
  for (let row = 0; row < rows; row++)
    for (let copy = 0; copy < copies; copy++) {
      const order = permutations[copy]!;
      const at = (row * copies + copy) * width;
      for (let i = 0; i < width; i++) wide[at + i] = raw[row * width + order[i]!]!;
    }
  const bytes = concat([field(1, varint(rows)), field(1, varint(width * copies)), field(2, varint(ONNX_INT8)), bytesField(8, name), bytesField(9, wide)]);
  return { bytes, dimension: width * copies };
}

interface Field {
  field: number;
  wire: number;
  varint: number;
  payload: Uint8Array;
  /** The whole field, key included. */
  raw: Uint8Array;
}

function* fields(buffer: Uint8Array): Generator<Field> {
  let at = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error('truncated varint');
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
    }
  };
  while (at < buffer.length) {
    const start = at;
    const key = readVarint();
    const wire = key & 7;
    let value = 0;
    let payload = buffer.subarray(at, at);
    if (wire === 0) value = readVarint();
    else if (wire === 2) {
      const length = readVarint();
      payload = buffer.subarray(at, at + length);
      at += length;
    } else if (wire === 5) at += 4;
    else if (wire === 1) at += 8;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
    yield { field: Math.floor(key / 8), wire, varint: value, payload, raw: buffer.subarray(start, at) };
  }
}

/** A packed run of varints. */
function packed(payload: Uint8Array): number[] {
  const out: number[] = [];
  let value = 0;
  let scale = 1;
  for (const byte of payload) {
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) (out.push(value), (value = 0), (scale = 1));
  }
  return out;
}

/** `message` with every length-delimited field `number` replaced by `change(payload)`. */
function rewrite(message: Uint8Array, number: number, change: (payload: Uint8Array) => Uint8Array): Uint8Array {
  return concat([...fields(message)].map((f) => (f.field === number && f.wire === 2 ? bytesField(number, change(f.payload)) : f.raw)));
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return Uint8Array.from(out);
}

const field = (number: number, value: Uint8Array) => concat([varint(number * 8), value]);
const bytesField = (number: number, payload: Uint8Array) => concat([varint(number * 8 + 2), varint(payload.length), payload]);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
