/**
 * The benchmarks' 384-d model (bench/widened-model.ts) is the offline 128-d
 * model widened by an orthogonal map: its vectors are 3 × 128 wide and give
 * the same cosines, so a 384-d cold start measures what the width costs with
 * the 128-d model's neighbours. These tests pin that, and that engram loads
 * it on its static path (no ONNX runtime), as it does the real model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTransformersEmbedder } from '../../src/index.js';
import { writeWidenedModel } from '../../bench/widened-model.js';
import { MODEL, MODEL_PATH } from '../support/memory.js';

const TEXTS = ['The user plays the cello in an amateur orchestra', 'Chose Postgres for the JSON support', 'weekend hiking trip to the mountains', 'cello lessons on Tuesdays', ''];
const dir = mkdtempSync(join(tmpdir(), 'engram-widened-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot / (Math.hypot(...a) * Math.hypot(...b) || 1);
};

describe('the widened benchmark model', () => {
  it('embeds 384 wide, on the static path, with the 128-d model’s cosines', async () => {
    const name = writeWidenedModel({ sourceDir: MODEL_PATH, model: MODEL, outDir: dir, name: 'bench/widened-384', copies: 3 });
    const messages: string[] = [];
    const wide = await loadTransformersEmbedder({ model: name, localModelPath: dir }, (p) => p.message && messages.push(p.message));
    const narrow = await loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH });
    expect(wide.dimension).toBe(384);
    expect(messages).toContain(`model ${name} ready (static table, 29528 tokens)`);
    const [w, n] = [await wide.embed(TEXTS), await narrow.embed(TEXTS)];
    for (let i = 0; i < TEXTS.length - 1; i++) {
      expect(Math.hypot(...w[i]!)).toBeCloseTo(1, 5);
      // The first copy is the 128-d vector itself, scaled by 1/√3; the other two are permutations of it.
      for (let d = 0; d < 128; d++) expect(w[i]![d]!).toBeCloseTo(n[i]![d]! / Math.sqrt(3), 6);
      expect([...w[i]!.subarray(128, 256)].sort()).toEqual([...w[i]!.subarray(0, 128)].sort());
      expect(w[i]!.subarray(128, 256)).not.toEqual(w[i]!.subarray(0, 128));
      for (let j = i + 1; j < TEXTS.length - 1; j++) expect(cosine(w[i]!, w[j]!)).toBeCloseTo(cosine(n[i]!, n[j]!), 6);
    }
    // The cosines compared are not all alike: the test would see a widened table that scrambled rows.
    expect(Math.abs(cosine(n[0]!, n[3]!) - cosine(n[0]!, n[1]!))).toBeGreaterThan(0.05);
  });
});
