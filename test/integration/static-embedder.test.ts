/**
 * The offline model is a static (Model2Vec) table exported as ONNX. By
 * default engram embeds with it without the ONNX runtime (issue 16: model
 * start in milliseconds); these tests pin that the vectors are the ONNX
 * pipeline's, to 1e-6, on texts that exercise the tokenizer's edges.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTransformersEmbedder } from '../../src/index.js';
import { readOnnxGraph } from '../../src/embed/static/onnx-reader.js';
import { staticTableFrom } from '../../src/embed/static/static-table.js';
import { MODEL, MODEL_PATH } from '../support/memory.js';

const TEXTS = [
  'The user plays the cello in an amateur orchestra',
  'Chose Postgres for the JSON support; MySQL was the other option.',
  '',
  '   ',
  'ünïcödé café naïve Zürich',
  '東京で寿司を食べました。这是一个中文句子。',
  '🙂🚀 emoji only 🎉',
  '[CLS] [SEP] [MASK] literal special tokens',
  'x',
  'zzzzqqqqxxxx',
  // Longer than the tokenizer's 512-token limit: both paths truncate the same way.
  Array.from({ length: 700 }, (_, i) => `word${i % 50} memory`).join(' '),
];

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('static embedding without the ONNX runtime', () => {
  it('gives the ONNX pipeline vectors to 1e-6, with the same id and dimension', async () => {
    const onnx = await loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH, runtime: 'onnx' });
    const events: { progress?: number; message?: string }[] = [];
    const table = await loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH }, (p) => p.phase === 'model' && events.push({ progress: p.progress, message: p.message }));
    // A loading screen hears the start and the end; the default took the static path (the comparison below would be vacuous otherwise).
    expect(events).toEqual([
      { progress: 0, message: `loading model ${MODEL}` },
      { progress: 1, message: `model ${MODEL} ready (static table, 29528 tokens)` },
    ]);
    expect(table.id).toBe(onnx.id);
    expect(table.dimension).toBe(onnx.dimension);
    const [expected, actual] = [await onnx.embed(TEXTS), await table.embed(TEXTS)];
    let worst = 0;
    for (let i = 0; i < TEXTS.length; i++) {
      expect(actual[i]!.length).toBe(expected[i]!.length);
      for (let d = 0; d < expected[i]!.length; d++) worst = Math.max(worst, Math.abs(actual[i]![d]! - expected[i]![d]!));
    }
    expect(worst).toBeLessThan(1e-6);
    // Not a vacuous comparison: the vectors are unit length and differ between texts.
    const norm = Math.hypot(...actual[0]!);
    expect(norm).toBeCloseTo(1, 5);
    expect(Math.abs(actual[0]![0]! - actual[1]![0]!) + Math.abs(actual[0]![1]! - actual[1]![1]!)).toBeGreaterThan(1e-4);
  });

  it('reads the table from the ONNX graph: the int8 rows, the 1/127 scale and the per-token weights', () => {
    const graph = readOnnxGraph(readFileSync(join(MODEL_PATH, MODEL, 'onnx/model_quantized.onnx')));
    const table = staticTableFrom(graph)!;
    expect(table).toBeDefined();
    expect([table.vocabularySize, table.dimension]).toEqual([29528, 128]);
    // [PAD] [UNK] [SEP] [MASK] are dropped, [CLS] is kept with a tiny weight (MANIFEST.md).
    expect([0, 1, 2, 3, 4].map((id) => table.tokenWeight(id))).toEqual([0, 0, expect.closeTo(1e-4, 8), 0, 0]);
    // A row from the table equals the raw int8 bytes of the safetensors copy times 1/127.
    const safetensors = readFileSync(join(MODEL_PATH, MODEL, 'model2vec/model.safetensors'));
    const headerLength = Number(safetensors.readBigUInt64LE(0));
    const rows = new Int8Array(safetensors.buffer, safetensors.byteOffset + 8 + headerLength, 29528 * 128);
    const row = new Float64Array(128);
    table.addRow(1000, 1, row);
    for (let d = 0; d < 128; d++) expect(row[d]).toBeCloseTo(rows[1000 * 128 + d]! / 127, 7); // the scale is float32 1/127
  });

  it('a transformer model (layers in its config) is never read as a table: it loads on the ONNX runtime', async () => {
    // The same files with a config that declares transformer layers: the static path must step aside.
    const dir = mkdtempSync(join(tmpdir(), 'engram-static-'));
    dirs.push(dir);
    cpSync(join(MODEL_PATH, MODEL), join(dir, MODEL), { recursive: true, filter: (path) => !path.includes('model2vec') });
    const configPath = join(dir, MODEL, 'config.json');
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(readFileSync(configPath, 'utf8')), num_hidden_layers: 0 }));
    const messages: string[] = [];
    const embedder = await loadTransformersEmbedder({ model: MODEL, localModelPath: `${dir}/` }, (p) => p.message && messages.push(p.message));
    expect(messages.some((m) => m.includes('static table'))).toBe(false);
    const [vector] = await embedder.embed(['The user plays the cello']);
    expect(vector!.length).toBe(128);
  });
});
