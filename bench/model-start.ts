/**
 * Model start (issue 16): how long the offline model takes to be ready, and
 * to embed, with the static table (the default for static models) and on the
 * ONNX runtime (`runtime: 'onnx'`, what engram did before). Each start runs in
 * a fresh Node process, so module loading and the runtime's start-up are
 * counted as a user meets them. Medians of RUNS starts, load average printed.
 *
 *   npm run bench:model            (MODEL_START_RUNS=7 for more runs)
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { median } from './support.js';

const RUNS = Number(process.env.MODEL_START_RUNS ?? 5);
const here = fileURLToPath(import.meta.url);

if (process.argv[2] === 'child') {
  const started = performance.now();
  const { loadTransformersEmbedder } = await import('../src/index.js');
  const { MODEL, MODEL_PATH } = await import('./support.js');
  const embedder = await loadTransformersEmbedder({ model: MODEL, localModelPath: MODEL_PATH, runtime: process.argv[3] as 'auto' | 'onnx' });
  const ready = performance.now() - started;
  const texts = Array.from({ length: 2000 }, (_, i) => `Memory number ${i}: the user mentioned topic ${i % 97} while planning a trip to place ${i % 31}`);
  const t0 = performance.now();
  await embedder.embed(texts);
  const perSecond = texts.length / ((performance.now() - t0) / 1000);
  console.log(JSON.stringify({ ready, perSecond }));
  process.exit(0);
}

const rows: string[] = [];
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const results: Record<string, { ready: number; perSecond: number }[]> = { auto: [], onnx: [] };
for (let run = 0; run < RUNS; run++) {
  for (const runtime of ['auto', 'onnx'] as const) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', here, 'child', runtime], { encoding: 'utf8' });
    results[runtime]!.push(JSON.parse(out.trim().split('\n').pop()!));
  }
}
for (const [runtime, label] of [['auto', 'static table (default)'], ['onnx', 'ONNX runtime']] as const) {
  const r = results[runtime]!;
  rows.push(`| ${label} | ${median(r.map((x) => x.ready)).toFixed(0)} ms | ${median(r.map((x) => x.perSecond)).toFixed(0)} |`);
}
console.log(`\nmodel start, ${MODEL_LABEL()}, ${RUNS} fresh processes each (medians):\n| runtime | import + ready | texts/s |\n| --- | ---: | ---: |\n${rows.join('\n')}`);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

function MODEL_LABEL() {
  return 'minishlab/potion-base-4M-int8 (Node)';
}
