/**
 * How many zod schemas engram's page entry builds, and when (issue 45: the
 * page's start long task): at import, then by createMemory's option parse
 * for an app that passes a name and a progress listener, then by a first
 * `recall()`'s input parse; and, in a process of its own, how many the
 * engine worker's modules build at import. Each is counted through zod's global
 * post-processor hook (zod calls it once per schema it builds), the parses
 * timed. The counts are deterministic; the times are one fresh Node
 * process's each (`--runs`), medians printed with the load average.
 *
 *   npx tsx bench/schema-builds.ts [--runs 7]
 *
 * Run it from another worktree to compare two versions (the script imports
 * the source beside it).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

interface Step {
  step: string;
  schemas: number;
  ms: number;
}

/** Not ./support.js's: it imports engram, which would load the entry before it is measured. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(): Promise<Step[]> {
  let built = 0;
  const steps: Step[] = [];
  const step = async (name: string, run: () => unknown) => {
    const hook = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } }).__zod_globalConfig;
    if (hook) hook.postProcessor = () => built++;
    const before = built;
    const started = performance.now();
    await run();
    steps.push({ step: name, schemas: built - before, ms: performance.now() - started });
  };
  // zod creates its global config when its core loads: load it first, so the entry's own schemas are counted.
  await import('zod/mini');
  let parse!: typeof import('../src/schema/parse.js').parseInput;
  await step('import the page entry (src/index.ts)', async () => {
    await import('../src/index.js');
    ({ parseInput: parse } = await import('../src/schema/parse.js'));
  });
  const { memoryOptionsSchema } = await import('../src/schema/memory-options.js');
  const { recallOptions } = await import('../src/operations/recall.js');
  await step("createMemory's options { name, onProgress }", () => parse(memoryOptionsSchema, { name: 'app', onProgress: () => undefined }, 'createMemory', { copy: false }));
  await step("a first recall's options { k: 5 }", () => parse(recallOptions, { k: 5 }, 'recall'));
  return steps;
}

/** The engine worker's module graph imported alone, in a process of its own: the schemas its script builds before the engine can open. */
async function measureWorker(): Promise<Step[]> {
  await import('zod/mini');
  let built = 0;
  const hook = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } }).__zod_globalConfig;
  if (hook) hook.postProcessor = () => built++;
  await import('../workers/serve-engine.js');
  return [{ step: "import the engine worker's modules (workers/serve-engine.ts), in a process of its own", schemas: built, ms: 0 }];
}

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '7' }, child: { type: 'boolean', default: false }, worker: { type: 'boolean', default: false } } });
if (args.child) {
  console.log(JSON.stringify(args.worker ? await measureWorker() : await measure()));
} else {
  const runs: Step[][] = [];
  for (let i = 0; i < Number(args.runs); i++) {
    runs.push(JSON.parse(execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--child'], { encoding: 'utf8' })) as Step[]);
  }
  console.log(`schema builds — Node ${process.version}, ${runs.length} fresh processes (tsx), load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const [i, { step, schemas }] of runs[0]!.entries()) {
    // The import's time is mostly tsx compiling the source, not what a bundled page pays: only its count is printed.
    const ms = i === 0 ? '' : `, median ${median(runs.map((r) => r[i]!.ms)).toFixed(1)} ms`;
    console.log(`  ${step}: ${schemas} schemas built${ms}`);
  }
  // A count only (deterministic): the import's time under tsx is mostly compiling the source.
  const [worker] = JSON.parse(execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--child', '--worker'], { encoding: 'utf8' })) as Step[];
  console.log(`  ${worker!.step}: ${worker!.schemas} schemas built`);
}
