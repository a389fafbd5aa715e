import type { CompletedTask, Memory } from 'engram';

/** A short, realistic agent task recorded through `memory.tasks`: no LLM involved. */
export async function runSampleTask(memory: Memory, userId: string): Promise<CompletedTask> {
  const task = await memory.tasks.start({
    userId,
    description: 'Fix the failing date-format test in the invoices module',
    type: 'debugging',
    context: { language: 'typescript', framework: 'vitest', complexity: 'moderate', domain: 'billing', tags: ['tests', 'dates'] },
  });
  const step = (tool: string, action: string, result: { kind: 'success'; output: string } | { kind: 'error'; message: string }, latencyMs: number) =>
    task.log({ tool, action, parameters: {}, result, latencyMs, tokens: 300 });
  step('run_tests', 'npm test invoices', { kind: 'error', message: 'expected "2026-01-05" to be "05/01/2026"' }, 2400);
  step('read_file', 'src/invoices/format.ts', { kind: 'success', output: 'formatDate uses toISOString()' }, 40);
  step('edit_file', 'use Intl.DateTimeFormat("en-GB")', { kind: 'success', output: '1 line changed' }, 60);
  step('run_tests', 'npm test invoices', { kind: 'success', output: '12 passed' }, 2100);
  step('git_commit', 'fix(invoices): format dates for en-GB', { kind: 'success', output: 'a1b2c3d' }, 80);
  return task.complete({ kind: 'success', verdict: 'test fixed', artifacts: ['src/invoices/format.ts', 'src/invoices/format.test.ts'] });
}
