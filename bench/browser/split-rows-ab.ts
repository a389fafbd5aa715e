/**
 * The bf16 plane split of a 100k snapshot's rows (SplitRows.writeMany of
 * 128-d rows in pages of 2,048 with their saved metadata, as loadBatch does at
 * open) in Chromium under 4× CDP CPU throttling, two worktrees alternating in
 * one browser: a paired A/B of that part of the open alone, where a full
 * bench:device pair at 100k takes too long on a busy machine.
 *
 *   npx tsx bench/browser/split-rows-ab.ts --base /work/wt-open-base --new . --pairs 4
 *
 * Each side's src/search/simd/split-rows.ts is bundled with esbuild; each
 * pass writes into a fresh SplitRows (so it pays the first touch of its
 * memory, as an open does). Prints per pair and side the passes' ms, their
 * median, and the load average.
 */
import { build } from 'esbuild';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../../test/support/browser.js';

const { values } = parseArgs({
  options: { base: { type: 'string' }, new: { type: 'string', default: '.' }, pairs: { type: 'string', default: '4' }, passes: { type: 'string', default: '5' } },
});
if (!values.base) throw new Error('--base <worktree> is required');

const ENTRY = `
import { SplitRows } from 'SPLIT_ROWS';
globalThis.runSplit = (passes) => {
  const D = 128, N = 100000, PAGE = 2048;
  let seed = 1;
  const vectors = new Float32Array(N * D).map(() => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1);
  const first = new SplitRows(D, N);
  first.writeMany(0, vectors, N);
  const meta = first.metadata(0, N);
  const out = [];
  for (let r = 0; r < passes; r++) {
    const rows = new SplitRows(D, N);
    const t = performance.now();
    for (let s = 0; s < N; s += PAGE) rows.writeMany(s, vectors.subarray(s * D, Math.min(N, s + PAGE) * D), Math.min(PAGE, N - s), meta.subarray(s * 8, Math.min(N, s + PAGE) * 8));
    out.push(performance.now() - t);
  }
  return out;
};`;

async function bundle(worktree: string): Promise<string> {
  const result = await build({
    stdin: { contents: ENTRY.replace('SPLIT_ROWS', resolve(worktree, 'src/search/simd/split-rows.ts')), resolveDir: resolve(worktree), loader: 'js' },
    bundle: true,
    format: 'iife',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

const sides = [
  { name: 'base', code: await bundle(values.base) },
  { name: 'new', code: await bundle(values.new) },
];
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
try {
  for (let p = 1; p <= Number(values.pairs); p++) {
    for (const side of sides) {
      const page = await browser.newPage();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.setContent('<html></html>');
      await page.addScriptTag({ content: side.code });
      const ms = await page.evaluate((passes) => (globalThis as unknown as { runSplit(n: number): number[] }).runSplit(passes), Number(values.passes));
      console.log(`pair ${p} ${side.name.padEnd(4)} ms ${ms.map((x) => Math.round(x)).join(' ')}  median ${Math.round(median(ms))}  load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
      await page.close();
    }
  }
} finally {
  await browser.close();
}
