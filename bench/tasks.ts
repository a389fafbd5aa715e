/**
 * Task step recording throughput: `task.log` with its default buffering
 * (one transaction per 50 steps) against one write per step (`flush()` after
 * every `log`). Time runs from the first `log` to the last step committed.
 */
import type { Memory, StepInput } from '../src/index.js';
import { benchMemory, median } from './support.js';

const TASKS = 4;
/** Under the 1,000 steps-per-task limit. */
const STEPS_PER_TASK = 500;
const RUNS = 3;

function step(i: number): StepInput {
  return {
    tool: i % 3 === 0 ? 'shell' : i % 3 === 1 ? 'editor' : 'search',
    action: `step ${i}: ${i % 3 === 0 ? 'run the unit tests' : i % 3 === 1 ? 'edit src/parser.ts' : 'look up the API'}`,
    parameters: { attempt: i, path: `src/file-${i % 17}.ts` },
    result: { kind: 'success', output: `ok (${i})` },
    latencyMs: 20 + (i % 50),
    tokens: 100 + (i % 300),
  };
}

async function stepsPerSecond(memory: Memory, flushEachStep: boolean): Promise<number> {
  const started = performance.now();
  for (let t = 0; t < TASKS; t++) {
    const task = await memory.tasks.start({ description: `Fix the flaky parser test, run ${t}`, type: 'debugging', context: { language: 'typescript', complexity: 'moderate', domain: 'parsers' } });
    for (let i = 0; i < STEPS_PER_TASK; i++) {
      task.log(step(i));
      if (flushEachStep) await task.flush();
    }
    await task.flush();
  }
  return (TASKS * STEPS_PER_TASK) / ((performance.now() - started) / 1000);
}

/** Rows: one write per step, default batching, and the speed-up (medians of RUNS). */
export async function taskStepRows(): Promise<(string | number)[][]> {
  const { memory } = await benchMemory();
  await stepsPerSecond(memory, false); // warm-up
  const single: number[] = [];
  const batched: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    single.push(await stepsPerSecond(memory, true));
    batched.push(await stepsPerSecond(memory, false));
  }
  await memory.close();
  return [
    ['one write per step (flush after each log)', median(single), 1],
    ['batched (default: a transaction per 50 steps)', median(batched), median(batched) / median(single)],
  ];
}

export const TASKS_TITLE = `Task steps logged per second (${TASKS} tasks × ${STEPS_PER_TASK} steps, median of ${RUNS})`;
export const TASKS_HEADER = ['mode', 'steps/s', 'vs one write per step'];
