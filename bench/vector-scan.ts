/**
 * Exact top-10 over random unit vectors, on the same rows and queries,
 * interleaved query by query so all see the same machine noise: the floors
 * (a plain WebAssembly SIMD f32 scan and a tuned JS loop, bench/floor), and
 * VectorMatrix scoring every row exactly against its default, which bounds
 * rows from their high halves and scores only the candidates exactly (the
 * `quantize` option). Prints p50/p95 per query, how many rows the default
 * scored exactly, whether every result is identical (ids and float scores
 * between the two paths, ids against the floor), and the memory each holds
 * per row against the raw f32 vector (WebAssembly memory, spare capacity
 * and scratch included; the matrices grew one row at a time). Exits 1 if
 * any result differs.
 *
 *   npm run bench:scan                          Node: 10k and 100k × 128, 384, 768 dims
 *   npx tsx bench/vector-scan.ts 100000 384     one size
 *   npx tsx bench/vector-scan.ts --chromium     the same in headless Chromium (a page's main thread)
 *   SIMD=0 npm run bench:scan                   the JS fallback (no WebAssembly SIMD)
 *
 * The measuring half (vector-scan-measure.ts) runs unchanged in a page:
 * --chromium bundles it with esbuild and calls `measureScan` there.
 */
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
  const raw = f.d * 4 * f.n;
  const memory = (bytes: number) => `${(bytes / f.n).toFixed(0)} (${(bytes / raw).toFixed(2)}x)`;
  const floor = (p50: number, p95: number) => `${(p50 / f.floor.p50).toFixed(2)}x / ${(p95 / f.floor.p95).toFixed(2)}x`;
  rows.push([f.n, f.d, 'floor: WebAssembly SIMD f32 scan', f.floor.p50, f.floor.p95, f.n, '', memory(f.floor.bytes), '1x']);
  rows.push([f.n, f.d, 'floor: tuned JS loop', f.floorJs.p50, f.floorJs.p95, f.n, '', memory(f.floor.bytes), floor(f.floorJs.p50, f.floorJs.p95)]);
  rows.push([f.n, f.d, 'engram, every row exact', f.f32.p50, f.f32.p95, f.n, '', memory(f.f32.bytes), floor(f.f32.p50, f.f32.p95)]);
  rows.push([
    f.n,
    f.d,
    'engram, bounds + exact re-rank',
    f.int8.p50,
    f.int8.p95,
    `${f.int8.rescoredP50} (max ${f.int8.rescoredMax})`,
    f.differ === 0 && f.differFloor === 0 ? `yes (${f.queries})` : `NO: ${f.differ} (paths), ${f.differFloor} (floor) of ${f.queries} differ`,
    memory(f.int8.bytes),
    floor(f.int8.p50, f.int8.p95),
  ]);
}
printTable(
  `Exact top-${K}, random unit vectors, ${QUERIES} queries after ${WARMUP} warm-up (${figures[0]?.simd ? 'WebAssembly SIMD' : 'JS fallback'}, ${where})`,
  ['memories', 'dims', 'path', 'p50 ms', 'p95 ms', 'rows scored exactly (p50)', 'identical', 'bytes/row (× raw f32)', 'time / floor p50 / p95'],
  rows,
);
if (figures.some((f) => f.differ > 0 || f.differFloor > 0)) process.exitCode = 1;
