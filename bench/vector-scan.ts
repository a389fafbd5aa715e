/**
 * Exact top-10 over random unit vectors: the f32 scan of every row against the
 * int8 scan with an exact f32 re-rank (VectorMatrix's `quantize` option), on
 * the same rows and queries, interleaved query by query so both see the same
 * machine noise. Prints p50/p95 per query, how many rows the int8 path
 * re-scored in f32, and whether every result (ids and float scores) is
 * identical. Exits 1 if any differs.
 *
 *   npm run bench:scan                          Node: 10k and 100k × 128, 384, 768 dims
 *   npx tsx bench/vector-scan.ts 100000 384     one size
 *   npx tsx bench/vector-scan.ts --chromium     the same in headless Chromium (a page's main thread)
 *   SIMD=0 npm run bench:scan                   the JS fallback (no WebAssembly SIMD)
 *
 * The measuring half (vector-scan-measure.ts) runs unchanged in a page:
 * --chromium bundles it with esbuild and calls `measureScan` there.
 */
import { QuantizedRows } from '../src/search/simd/quantized-rows.js';
import { launchChromium } from '../test/support/browser.js';
import { printTable } from './support.js';
import { K, QUERIES, WARMUP, measureScan, type ScanFigures } from './vector-scan-measure.js';

const args = process.argv.slice(2);
const chromium = args.includes('--chromium');
const [size, dims] = args.filter((a) => !a.startsWith('--')).map(Number);
const sizes = size ? [size] : [10_000, 100_000];
const dimensions = dims ? [dims] : [128, 384, 768];
const simd = process.env.SIMD !== '0';
const configs = sizes.flatMap((n) => dimensions.map((d) => ({ n, d })));

let figures: ScanFigures[];
let where = `Node ${process.version}`;
if (chromium) {
  // esbuild comes with tsx (which runs this file), so it is always installed.
  const { build } = await import('esbuild');
  const bundle = await build({
    stdin: { contents: "import { measureScan } from './vector-scan-measure.ts'; globalThis.measureScan = measureScan;", resolveDir: import.meta.dirname, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
    where = `Chromium ${browser.version()}, page main thread`;
    figures = [];
    for (const { n, d } of configs) {
      figures.push(await page.evaluate(([n, d, simd]) => (globalThis as unknown as { measureScan: typeof measureScan }).measureScan(n, d, simd), [n, d, simd] as const));
    }
  } finally {
    await browser.close();
  }
} else {
  figures = configs.map(({ n, d }) => measureScan(n, d, simd));
}

const rows: (string | number)[][] = [];
for (const f of figures) {
  const f32Bytes = Math.ceil(f.d / 8) * 8 * 4 + 4;
  rows.push([f.n, f.d, 'f32 scan', f.f32.p50, f.f32.p95, f.n, '', f32Bytes, '']);
  rows.push([
    f.n,
    f.d,
    'int8 + f32 re-rank',
    f.int8.p50,
    f.int8.p95,
    `${f.int8.rescoredP50} (max ${f.int8.rescoredMax})`,
    f.differ === 0 ? `yes (${f.queries})` : `NO: ${f.differ} of ${f.queries} differ`,
    f32Bytes + QuantizedRows.bytesPerRow(f.d),
    `${(f.f32.p50 / f.int8.p50).toFixed(2)}x / ${(f.f32.p95 / f.int8.p95).toFixed(2)}x`,
  ]);
}
printTable(
  `Exact top-${K}, random unit vectors, ${QUERIES} queries after ${WARMUP} warm-up (${figures[0]?.simd ? 'WebAssembly SIMD' : 'JS fallback'}, ${where})`,
  ['memories', 'dims', 'path', 'p50 ms', 'p95 ms', 'rows scored in f32 (p50)', 'identical', 'bytes/row', 'speed-up p50 / p95'],
  rows,
);
if (figures.some((f) => f.differ > 0)) process.exitCode = 1;
