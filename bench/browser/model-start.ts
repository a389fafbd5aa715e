/**
 * Model start in Chromium (issue 16): navigation → `createMemory()` resolved
 * (worker started, offline model ready) → first `recall()` answered, on an
 * empty memory, with a fresh browser context each time (no HTTP cache: a
 * first visit). Compares the static table (the default for static models)
 * with the ONNX runtime (`runtime: 'onnx'`, what engram did before).
 * Medians of BENCH_RUNS (5) runs each, load average printed.
 *
 *   npm run bench:model:browser
 */
import { build } from 'vite';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { startDemoServer } from '../../demo/server.js';
import { launchChromium } from '../../test/support/browser.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await build({ configFile: here('../../test/browser/bare-page/vite.config.ts'), logLevel: 'error' });
const server = await startDemoServer({ pageDir: here('../../test/browser/bare-page/dist/') });
const browser = await launchChromium();
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const results: Record<string, { open: number; answered: number; createMemory: number; model: number }[]> = { 'auto:first': [], 'onnx:first': [], 'auto:second': [], 'onnx:second': [] };
for (let run = 0; run < RUNS; run++) {
  for (const runtime of ['auto', 'onnx']) {
    const context = await browser.newContext();
    const page = await context.newPage();
    // First visit (nothing cached), then a reload in the same context (model files in the Cache API, pages in the HTTP cache).
    for (const visit of ['first', 'second'] as const) {
      if (visit === 'first') await page.goto(server.url);
      else await page.reload();
      await page.waitForFunction(() => (window as unknown as { engramDemo?: { ready?: boolean } }).engramDemo?.ready);
      const timing = await page.evaluate(async (runtime) => {
        const demo = (window as unknown as { engramDemo: { open(o: object, e: object): Promise<{ recall(q: string): Promise<unknown[]>; close(): Promise<void> }> } }).engramDemo;
        const called = performance.now();
        // The model's own start, from its first progress event (loading) to its last (ready), both timed on the page.
        const marks: { at: number; progress?: number }[] = [];
        // Built from a string: tsx names functions written here with a helper (__name) the page does not have.
        const onProgress = new Function('marks', "return (p) => { if (p.phase === 'model') marks.push({ at: performance.now(), progress: p.progress }); }")(marks);
        const memory = await demo.open({ name: `model-start-${runtime}`, onProgress }, { runtime });
        const open = performance.now();
        const model = marks.findLast((m) => m.progress === 1)!.at - marks.find((m) => m.progress === 0)!.at;
        await memory.recall('which musical instrument?');
        const answered = performance.now();
        await memory.close();
        // From navigation start, as the user waits; and createMemory alone.
        return { open, answered, createMemory: open - called, model };
      }, runtime);
      results[`${runtime}:${visit}`]!.push(timing);
    }
    await context.close();
  }
}
await browser.close();
await server.close();
const rows = (['first', 'second'] as const).flatMap((visit) =>
  (
    [
      ['auto', 'static table (default)'],
      ['onnx', 'ONNX runtime'],
    ] as const
  ).map(([runtime, label]) => {
    const r = results[`${runtime}:${visit}`]!;
    return `| ${visit} | ${label} | ${median(r.map((x) => x.model)).toFixed(0)} ms | ${median(r.map((x) => x.createMemory)).toFixed(0)} ms | ${median(r.map((x) => x.open)).toFixed(0)} ms | ${median(r.map((x) => x.answered)).toFixed(0)} ms |`;
  }),
);
console.log(
  `\nChromium, empty memory, worker mode, ${RUNS} runs each (medians; "first": fresh context, nothing cached; "second": reload, model files in the Cache API):\n| visit | runtime | model loading → ready | createMemory() | navigation → resolved | navigation → first recall |\n| --- | --- | ---: | ---: | ---: | ---: |\n${rows.join('\n')}`,
);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
