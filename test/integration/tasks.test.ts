import { afterEach, describe, expect, it, vi } from 'vitest';
import { LimitError, NotFoundError, TASK_LIMITS, type StepInput } from '../../src/index.js';
import { memoryFixture } from '../support/memory-fixture.js';
import { settledUntil, settleTasks, useFakeTimers } from '../support/fake-time.js';

const { open } = memoryFixture();
// Registered after the fixture, so it runs before the fixture closes the memories (after-hooks run last first).
afterEach(() => {
  vi.useRealTimers();
});
const context = { language: 'typescript', framework: 'react', complexity: 'moderate' as const, domain: 'web', tags: ['frontend', 'forms'] };
const ok = (tool: string, output = 'ok', latencyMs = 100): StepInput => ({ tool, action: `run ${tool}`, parameters: {}, result: { kind: 'success', output }, latencyMs });
const err = (tool: string, message = 'failed'): StepInput => ({ tool, action: `run ${tool}`, parameters: {}, result: { kind: 'error', message }, latencyMs: 100 });

describe('recording', () => {
  it('end to end: start, five steps, complete with artifacts; relevant() returns it first and patterns.relevant is non-empty', async () => {
    let now = Date.UTC(2026, 0, 1);
    const m = await open({ clock: () => now });
    const task = await m.tasks.start({ description: 'Add validation to the signup form in the React app', type: 'code-generation', context });
    for (const step of [ok('read_file'), ok('edit_file'), err('run_tests', 'TypeError: email is undefined'), ok('edit_file'), ok('run_tests')]) task.log(step);
    now += 20_000;
    const done = await task.complete({ kind: 'success', verdict: 'validation added', artifacts: ['SignupForm.tsx', 'SignupForm.test.tsx'] });
    expect(done.reward.base).toBe(1);
    expect(done.reward.total).toBeGreaterThan(1);
    expect(done.reflection.successes[0]).toMatch(/Completed the task with 2 artifacts/);
    expect(done.patternIds.length).toBeGreaterThan(0);

    const other = await m.tasks.start({ description: 'Write the quarterly finance report', type: 'documentation', context: { complexity: 'simple', domain: 'finance', tags: [] } });
    await other.complete({ kind: 'failure', reason: 'no data' });

    const relevant = await m.tasks.relevant({ description: 'Add validation to the login form', context: { domain: 'web', language: 'typescript' } }, { k: 2 });
    expect(relevant[0]!.task.id).toBe(task.id);
    expect(relevant[0]!.score).toBeGreaterThan(relevant[1]?.score ?? 0);
    expect(await m.patterns.relevant({ domain: 'web' }, { k: 5 })).not.toHaveLength(0);
    const stored = await m.tasks.get(task.id);
    expect(stored.steps.map((s) => s.index)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.status).toBe('completed');
    expect(await m.tasks.stats()).toMatchObject({ total: 2, completed: 2, byOutcome: { success: 1, failure: 1 } });
  });

  it('flush is idempotent; auto-flush at 50 steps and on the timer', async () => {
    const m = await open();
    const task = await m.tasks.start({ description: 'Refactor', type: 'refactoring', context });
    task.log(ok('a'));
    await task.flush();
    await task.flush();
    expect((await m.tasks.get(task.id)).steps).toHaveLength(1);
    // On fake timers the flush interval never passes: only the 50th step can flush them.
    useFakeTimers();
    for (let i = 0; i < 50; i++) task.log(ok('b'));
    expect(await settledUntil(async () => (await m.tasks.get(task.id)).steps.length === 51)).toBe(true);
    vi.useRealTimers();

    const timed = await open({ tasks: { flushIntervalMs: 100 } });
    const t2 = await timed.tasks.start({ description: 'Timer', type: 'other', context });
    useFakeTimers();
    t2.log(ok('c'));
    // Not before the interval has passed, and then without any call.
    await vi.advanceTimersByTimeAsync(99);
    await settleTasks();
    expect((await timed.tasks.get(t2.id)).steps).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settledUntil(async () => (await timed.tasks.get(t2.id)).steps.length === 1)).toBe(true);
  });

  it('five concurrent tasks all complete', async () => {
    const m = await open();
    const results = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const t = await m.tasks.start({ description: `Concurrent task ${i}`, type: 'testing', context });
        for (let s = 0; s < 7; s++) t.log(ok(`tool${s % 3}`));
        return t.complete({ kind: 'success', verdict: 'done', artifacts: [] });
      }),
    );
    expect(results).toHaveLength(5);
    expect((await m.tasks.stats()).completed).toBe(5);
  });

  it('unknown id → NotFoundError carrying the id', async () => {
    const m = await open();
    const error = await m.tasks.get('missing-task').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).id).toBe('missing-task');
  });
});

describe('limits: at the boundary passes, one past fails with LimitError and writes nothing', () => {
  it('description', async () => {
    const m = await open();
    await m.tasks.start({ description: 'x'.repeat(TASK_LIMITS.descriptionBytes), type: 'other', context });
    await expect(m.tasks.start({ description: 'é'.repeat(TASK_LIMITS.descriptionBytes / 2) + 'x', type: 'other', context })).rejects.toBeInstanceOf(LimitError);
    expect((await m.tasks.stats()).total).toBe(1);
  });

  it('step output and error message', async () => {
    const m = await open();
    const t = await m.tasks.start({ description: 'limits', type: 'other', context });
    t.log(ok('a', 'y'.repeat(TASK_LIMITS.stepOutputBytes)));
    expect(() => t.log(ok('a', 'y'.repeat(TASK_LIMITS.stepOutputBytes + 1)))).toThrow(LimitError);
    t.log(err('a', 'z'.repeat(TASK_LIMITS.stepOutputBytes)));
    expect(() => t.log(err('a', 'z'.repeat(TASK_LIMITS.stepOutputBytes + 1)))).toThrow(LimitError);
    await t.flush();
    expect((await m.tasks.get(t.id)).steps).toHaveLength(2);
  });

  it('large parameters and all parameters', async () => {
    const m = await open();
    const t = await m.tasks.start({ description: 'params', type: 'other', context });
    // All parameters serialised: {"a":"…"} is 8 bytes of JSON around the value.
    t.log({ ...ok('w'), parameters: { a: 'q'.repeat(TASK_LIMITS.parametersBytes - 8) } });
    expect(() => t.log({ ...ok('w'), parameters: { a: 'q'.repeat(TASK_LIMITS.parametersBytes - 7) } })).toThrow(/parameters is 1,000,001 bytes/);
    // One parameter whose key names content: its own limit is checked first. (At exactly its limit the
    // whole-parameters limit, equal to it, is already exceeded by the JSON around it.)
    expect(() => t.log({ ...ok('w'), parameters: { fileContent: 'p'.repeat(TASK_LIMITS.largeParameterBytes + 1) } })).toThrow(/parameter "fileContent" is 1,000,001 bytes/);
    await t.flush();
    expect((await m.tasks.get(t.id)).steps).toHaveLength(1);
  });

  it('the outcome: each text and the whole; an outcome over them writes nothing, not even the buffered steps', async () => {
    const m = await open();
    const t = await m.tasks.start({ description: 'outcome limits', type: 'other', context });
    t.log(ok('a'));
    const over = [
      { kind: 'success' as const, verdict: 'v'.repeat(TASK_LIMITS.outcomeTextBytes + 1) },
      { kind: 'failure' as const, reason: 'r', details: 'é'.repeat(TASK_LIMITS.outcomeTextBytes / 2) + 'd' },
      { kind: 'abstained' as const, atStep: 0, reason: 'r'.repeat(TASK_LIMITS.outcomeTextBytes + 1) },
      // Each artifact short, the list over the whole outcome's limit.
      { kind: 'success' as const, verdict: 'v', artifacts: Array.from({ length: TASK_LIMITS.outcomeBytes / 10 }, (_, i) => `file-${i}.ts`) },
    ];
    for (const outcome of over) await expect(t.complete(outcome)).rejects.toBeInstanceOf(LimitError);
    await expect(t.complete({ kind: 'partial', verdict: 'p'.repeat(TASK_LIMITS.outcomeTextBytes + 1), completed: [], failed: [] })).rejects.toThrow(
      /outcome verdict is 10,001 bytes; the limit is 10,000/,
    );
    expect(await m.tasks.get(t.id)).toMatchObject({ status: 'running', stepCount: 0 });
    const done = await t.complete({ kind: 'success', verdict: 'v'.repeat(TASK_LIMITS.outcomeTextBytes), artifacts: ['a.ts'] });
    expect(done.reward.base).toBe(1);
    expect(await m.tasks.get(t.id)).toMatchObject({ status: 'completed', stepCount: 1, outcome: { verdict: 'v'.repeat(TASK_LIMITS.outcomeTextBytes) } });
  });

  it('1,000 steps per task', async () => {
    const m = await open();
    const t = await m.tasks.start({ description: 'many steps', type: 'other', context });
    for (let i = 0; i < TASK_LIMITS.stepsPerTask; i++) t.log(ok('s'));
    expect(() => t.log(ok('s'))).toThrow(LimitError);
    await t.flush();
    expect((await m.tasks.get(t.id)).stepCount).toBe(1000);
  });

  it('unicode, NUL bytes and whitespace-only strings are stored exactly', async () => {
    const m = await open();
    const description = '  \u0000 naïve 🚀 \t ';
    const t = await m.tasks.start({ description, type: 'other', context });
    t.log(ok('tool\u0000x', '   '));
    await t.flush();
    const stored = await m.tasks.get(t.id);
    expect(stored.description).toBe(description);
    expect(stored.steps[0]).toMatchObject({ tool: 'tool\u0000x', result: { kind: 'success', output: '   ' } });
  });
});

describe('portability', () => {
  it('export → import round-trips tasks, steps and patterns, and relevant() works after', async () => {
    const source = await open();
    const t = await source.tasks.start({ description: 'Migrate the CI pipeline to GitHub Actions', type: 'other', context });
    t.log(ok('read_config'));
    t.log(ok('write_workflow'));
    await t.complete({ kind: 'success', verdict: 'done', artifacts: ['ci.yml'] });
    const target = await open();
    const summary = await target.import(await source.export());
    expect(summary.tasks).toBe(1);
    expect((await target.tasks.get(t.id)).steps).toHaveLength(2);
    expect((await target.tasks.relevant({ description: 'CI pipeline migration', context: {} }))[0]!.task.id).toBe(t.id);
    expect(await target.patterns.relevant({ domain: 'web' })).not.toHaveLength(0);
    await target.forget({ userId: 'default' });
    expect(await target.tasks.relevant({ description: 'CI pipeline migration', context: {} })).toEqual([]);
  });
});
