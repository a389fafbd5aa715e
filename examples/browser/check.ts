/**
 * Proves the browser quick start in real apps: each example under
 * examples/browser/ installs the PACKED package (engram-0.1.0.tgz, from
 * `npm pack` at the repository root), is built (or served by Vite's dev
 * server), opened in Chromium, creates a memory in worker mode on the offline
 * model, adds facts and recalls them. Asserted: the right top hit, no console
 * errors, no request off 127.0.0.1; the page's own JavaScript (gzip) is printed.
 * Before them, the Node agent (examples/node-agent/) installs the tarball on
 * its own and keeps memories in a durable store across two runs, and the
 * example extension (examples/extension/) is built from the tarball and
 * loaded unpacked (./check-extension.ts).
 *
 *   npm run examples                  pack, install each example, check all
 *   EXAMPLES=vite-build,esbuild npm run examples
 *   EXAMPLES_SKIP_INSTALL=1 npm run examples    reuse the last installs (in $EXAMPLES_DIR, default /tmp/engram-examples)
 *
 * Not part of `npm test`: the installs take minutes (each example installs
 * its bundler from the npm registry). CI runs it as its own step.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { serveStatic } from '../../demo/static.js';
import { launchChromium, nonLocalHosts, watchPage } from '../../test/support/browser.js';
import { checkExtension } from './check-extension.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/**
 * The apps are copied out of the repository before installing: inside it,
 * Node's resolution would walk up to the repository's own node_modules and
 * hide a missing dependency.
 */
const workRoot = process.env.EXAMPLES_DIR ?? `${tmpdir()}/engram-examples/`;
const app = (name: string) => `${workRoot}${name}/`;
const root = here('../../');
const modelsDir = process.env.ENGRAM_MODELS_DIR ?? here('../../../shared/models/');
const EXPECTED_TOP = 'The user plays the cello in an amateur orchestra';
/** The issue's target for the page's own JavaScript in worker mode; see the report printed at the end. */
const PAGE_GZIP_TARGET = 30 * 1024;
/**
 * What the check fails above: today's page (27–30 kB gzip) plus room for small
 * changes, so a regression (zod classic, the store, Dexie or the tokenizer
 * back on the page) fails instead of only printing.
 */
const PAGE_GZIP_BUDGET = 36 * 1024;

interface Example {
  name: string;
  dir: string;
  /** Builds and returns the folder to serve, or starts a dev server and returns its URL. */
  start(): Promise<{ url: string; folder?: string; stop(): Promise<void> }>;
  /** The page's JavaScript includes a framework (React and Next.js's runtime): printed, not held to engram's budget. */
  framework?: boolean;
}

const run = (cwd: string, command: string, args: string[]) =>
  execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', NEXT_TELEMETRY_DISABLED: '1' } });

function staticServer(folder: string): Promise<{ url: string; folder: string; stop(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    serveStatic(res, folder, path === '/' ? 'index.html' : path.slice(1));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        folder,
        stop: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

function viteDevServer(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(`${dir}node_modules/.bin/vite`, ['--host', '127.0.0.1', '--port', '5199'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`vite dev server did not start:\n${output}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, stop: async () => void child.kill('SIGTERM') });
      }
    });
    child.on('exit', (code) => reject(new Error(`vite exited (${code}):\n${output}`)));
  });
}

const examples: Example[] = [
  { name: 'vite-dev', dir: app('vite'), start: () => viteDevServer(app('vite')) },
  {
    name: 'vite-build',
    dir: app('vite'),
    start: async () => (run(app('vite'), 'npx', ['vite', 'build', '--logLevel', 'warn']), staticServer(app('vite') + 'dist/')),
  },
  { name: 'webpack', dir: app('webpack'), start: async () => (run(app('webpack'), 'npm', ['run', 'build']), staticServer(app('webpack') + 'dist/')) },
  { name: 'esbuild', dir: app('esbuild'), start: async () => (run(app('esbuild'), 'npm', ['run', 'build']), staticServer(app('esbuild') + 'out/')) },
  // Next.js (Turbopack), static export: a client component starts engram in an effect.
  { name: 'next', dir: app('next'), framework: true, start: async () => (run(app('next'), 'npm', ['run', 'build']), staticServer(app('next') + 'out/')) },
];

const wanted = process.env.EXAMPLES?.split(',');
let failed = false;
const selected = examples.filter((e) => !wanted || wanted.includes(e.name));
const tarball = `${root}engram-0.1.0.tgz`;
if (!process.env.EXAMPLES_SKIP_INSTALL) {
  if (!existsSync(`${root}dist/engine.worker.js`)) run(root, 'npx', ['tsup', '--silent']);
  run(root, 'npm', ['pack', '--silent']);
  for (const dir of new Set(selected.map((e) => e.dir))) {
    const source = here(`./${dir.slice(workRoot.length)}`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(source, dir, { recursive: true, filter: (path) => !/(^|\/)(node_modules|dist|out|models)(\/|$)/.test(path.slice(source.length)) });
    // The example names the tarball relative to the repository; the copy names it absolutely.
    const manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    manifest.dependencies.engram = `file:${tarball}`;
    writeFileSync(`${dir}package.json`, JSON.stringify(manifest, null, 2));
    run(dir, 'npm', ['install', '--no-audit', '--no-fund']);
  }
}
for (const dir of new Set(selected.map((e) => e.dir))) {
  // The app serves its own model, like any static file (public/ in each example).
  cpSync(`${modelsDir}minishlab/potion-base-4M-int8`, `${dir}public/models/minishlab/potion-base-4M-int8`, {
    recursive: true,
    filter: (source) => !source.includes('model2vec'),
  });
}

/**
 * The Node agent (examples/node-agent/): installs the packed tarball alone (no
 * @huggingface/transformers: the offline model is a static one), writes to a
 * durable store, reopens it. Run unless EXAMPLES names only browser apps.
 */
const nodeReport: string[] = [];
if (!wanted || wanted.includes('node-agent')) {
  const dir = app('node-agent');
  if (!process.env.EXAMPLES_SKIP_INSTALL) {
    rmSync(dir, { recursive: true, force: true });
    cpSync(here('../node-agent/'), dir, { recursive: true, filter: (path) => !path.includes('node_modules') });
    const manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    manifest.dependencies.engram = `file:${tarball}`;
    writeFileSync(`${dir}package.json`, JSON.stringify(manifest, null, 2));
    run(dir, 'npm', ['install', '--no-audit', '--no-fund']);
  }
  const output = execFileSync(process.execPath, ['agent.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ENGRAM_MODELS_DIR: modelsDir } });
  const result = JSON.parse(output.trim().split('\n').pop()!) as { openedMs: number; first?: string; afterReopen?: string };
  const problems = [
    result.first === EXPECTED_TOP ? '' : `top hit ${JSON.stringify(result.first)}`,
    result.afterReopen === 'The user keeps bees on the roof of their flat' ? '' : `after reopen ${JSON.stringify(result.afterReopen)}`,
    existsSync(`${dir}node_modules/@huggingface/transformers`) ? 'installed @huggingface/transformers' : '',
  ].filter(Boolean);
  failed ||= problems.length > 0;
  const size = execFileSync('du', ['-sm', `${dir}node_modules`], { encoding: 'utf8' }).split('\t')[0];
  nodeReport.push(`${'node-agent'.padEnd(11)} ${problems.length ? `FAIL ${problems.join('; ')}` : 'ok'}  createMemory ${result.openedMs} ms (durable store, static model), node_modules ${size} MB`);
}

/** The example extension (examples/extension/): run unless EXAMPLES leaves it out. */
if (!wanted || wanted.includes('extension')) {
  const line = await checkExtension({ dir: app('extension'), tarball, modelsDir, install: !process.env.EXAMPLES_SKIP_INSTALL });
  failed ||= line.includes(' FAIL ');
  nodeReport.push(line);
}

const browser = await launchChromium();
const report: string[] = [];
for (const example of selected) {
  let started: Awaited<ReturnType<Example['start']>>;
  try {
    started = await example.start();
  } catch (error) {
    failed = true;
    report.push(`${example.name.padEnd(11)} FAIL to build or serve: ${(error as Error).message.split('\n')[0]}`);
    continue;
  }
  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  page.on('response', (response) => response.status() >= 400 && watch.errors.push(`HTTP ${response.status()} ${response.url()}`));
  try {
    await page.goto(started.url);
    await page.waitForFunction(() => (window as unknown as { exampleResult?: unknown }).exampleResult, null, { timeout: 180_000 });
    const result = await page.evaluate(() => (window as unknown as { exampleResult: { top?: string; error?: string } }).exampleResult);
    // The page's own scripts (not the worker's): what a worker-mode app pays on its main thread.
    const loaded = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({ url: e.name, initiator: e.initiatorType })),
    );
    const scripts = loaded.filter((e) => /\.m?js(\?|$)/.test(e.url));
    // The worker's own script is fetched for `new Worker()` (initiator "other"); Chromium lists its static imports in the page's timeline too, though they run off the main thread.
    const offMainThread = started.folder ? staticImportClosure(started.folder, scripts.filter((e) => e.initiator === 'other').map((e) => e.url)) : new Set<string>();
    const pageScripts = scripts
      .filter((e) => e.initiator !== 'other' && !offMainThread.has(e.url) && !/engine\.worker|transformers|ort-wasm/.test(e.url))
      .map((e) => e.url);
    const sizes = started.folder ? pageScripts.map((url) => ({ url: new URL(url).pathname, gzip: gzipSync(readFileSync(`${started.folder}${new URL(url).pathname.slice(1)}`)).length })) : [];
    const gzip = started.folder ? sizes.reduce((sum, s) => sum + s.gzip, 0) : undefined;
    if (process.env.EXAMPLES_VERBOSE) console.log(example.name, sizes, [...offMainThread], watch.requests.map((r) => new URL(r).pathname));
    const problems = [
      result.top === EXPECTED_TOP ? '' : `top hit ${JSON.stringify(result.top ?? result.error)}, expected ${JSON.stringify(EXPECTED_TOP)}`,
      watch.errors.length ? `console errors: ${watch.errors.join(' | ')}` : '',
      nonLocalHosts(watch.requests).length ? `requests off 127.0.0.1: ${nonLocalHosts(watch.requests).join(', ')}` : '',
      gzip !== undefined && !example.framework && gzip > PAGE_GZIP_BUDGET ? `page JS ${(gzip / 1024).toFixed(1)} kB gzip is over the ${PAGE_GZIP_BUDGET / 1024} kB budget` : '',
    ].filter(Boolean);
    failed ||= problems.length > 0;
    report.push(
      `${example.name.padEnd(11)} ${problems.length ? `FAIL ${problems.join('; ')}` : 'ok'}${
        gzip === undefined
          ? ''
          : example.framework
            ? `  page JS ${(gzip / 1024).toFixed(1)} kB gzip (with React and the Next.js runtime)`
            : `  page JS ${(gzip / 1024).toFixed(1)} kB gzip (target ${PAGE_GZIP_TARGET / 1024} kB${gzip > PAGE_GZIP_TARGET ? ', NOT MET' : ''})`
      }`,
    );
  } catch (error) {
    failed = true;
    report.push(`${example.name.padEnd(11)} FAIL ${(error as Error).message.split('\n')[0]} ${watch.errors.join(' | ')}`);
  } finally {
    await context.close();
    await started.stop();
  }
}
await browser.close();
console.log(`\nexamples:\n${[...nodeReport, ...report].join('\n')}`);
process.exit(failed ? 1 : 0);

/**
 * The URLs of `entries` and every module they import statically, read from
 * the served folder: what a module worker loads before it runs.
 */
function staticImportClosure(folder: string, entries: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (url: string) => {
    const { pathname, origin } = new URL(url);
    const key = `${origin}${pathname}`;
    if (seen.has(key)) return;
    seen.add(key);
    let code: string;
    try {
      code = readFileSync(`${folder}${pathname.slice(1)}`, 'utf8');
    } catch {
      return;
    }
    // `import … from "./x.js"`, `import "./x.js"`, `export … from "./x.js"` (not `import("./x.js")`, which is fetched only when called).
    for (const match of code.matchAll(/(?:^|[;\s}])(?:import|export)\s*(?:[\w*{}$,\s]+?\s*from\s*)?["']([^"']+\.m?js)["']/g)) visit(new URL(match[1]!, key).href);
  };
  for (const entry of entries) visit(entry);
  return seen;
}
