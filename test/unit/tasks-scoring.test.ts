import { describe, expect, it } from 'vitest';
import { taskOutcomeSchema, type StepRecord } from '../../src/schema/task.js';
import { contextMatchScore } from '../../src/tasks/context-match.js';
import { extractPatterns, mergePattern, patternId } from '../../src/tasks/patterns.js';
import { reflect } from '../../src/tasks/reflection.js';
import { computeReward } from '../../src/tasks/reward.js';

type Step = Pick<StepRecord, 'tool' | 'action' | 'result' | 'latencyMs' | 'tokens' | 'index'>;
const ok = (tool: string, i = 1, latencyMs = 100): Step => ({ tool, action: tool, result: { kind: 'success', output: '' }, latencyMs, index: i });
const err = (tool: string, message = 'boom', i = 1): Step => ({ tool, action: tool, result: { kind: 'error', message }, latencyMs: 100, index: i });
const outcome = (o: unknown) => taskOutcomeSchema.parse(o);
const reward = (o: unknown, steps: Step[] = [], extra: Partial<Parameters<typeof computeReward>[0]> = {}) =>
  computeReward({ outcome: outcome(o), steps, durationMs: 0, complexity: 'simple', newPatternCount: 0, ...extra });

describe('reward', () => {
  it('base: success 1, partial completed/(completed+failed) or 0.5, failure 0, abstained 0.3', () => {
    expect(reward({ kind: 'success', verdict: 'v', artifacts: [] }).base).toBe(1);
    expect(reward({ kind: 'partial', verdict: 'v', completed: ['a', 'b'], failed: ['c'] }).base).toBeCloseTo(0.667, 3);
    expect(reward({ kind: 'partial', verdict: 'v', completed: [], failed: [] }).base).toBe(0.5);
    expect(reward({ kind: 'abstained', atStep: 5, reason: 'r' }).base).toBe(0.3);
    const failure = reward({ kind: 'failure', reason: 'r' });
    expect(failure.base).toBe(0);
    expect(failure.total).toBe(0);
  });

  it('efficiency: duration and step scores, clamped to [0.5, 1.5]', () => {
    const r = reward({ kind: 'success', verdict: 'v', artifacts: [] });
    expect(r.durationScore).toBe(1.5);
    expect(r.stepScore).toBe(0.5);
    expect(r.efficiency).toBe(1);
    const slow = reward({ kind: 'success', verdict: 'v', artifacts: [] }, [ok('a')], { durationMs: 120_000 });
    expect(slow.durationScore).toBeCloseTo(0.5 + Math.exp(-1), 10);
    expect(slow.stepScore).toBeCloseTo(0.5 + Math.exp(-0.05), 10);
  });

  it('complexity totals strictly increase', () => {
    const steps = [ok('a', 1), ok('b', 2)];
    const totals = (['simple', 'moderate', 'complex'] as const).map((complexity) => reward({ kind: 'success', verdict: 'v', artifacts: [] }, steps, { complexity, durationMs: 5000 }).total);
    expect(totals[0]).toBeLessThan(totals[1]!);
    expect(totals[1]).toBeLessThan(totals[2]!);
  });

  it('quality: test artifacts, three artifacts, coverage, error rate', () => {
    const r = reward({ kind: 'success', verdict: 'v', artifacts: ['a.ts', 'a.test.ts', 'b.ts'] }, [ok('a')], { metadata: { test_coverage: 85 } });
    expect(r.qualityMultiplier).toBeCloseTo(1 + 0.1 + 0.05 + 0.15 + 0.1, 10);
    const errors = reward({ kind: 'success', verdict: 'v', artifacts: [] }, [err('a'), err('b'), ok('c')]);
    expect(errors.qualityMultiplier).toBeCloseTo(0.8, 10);
  });

  it('an error step followed directly by a success earns the recovery bonus', () => {
    const without = reward({ kind: 'success', verdict: 'v', artifacts: [] }, [ok('a'), err('b'), err('c')], { durationMs: 60_000 });
    const withRecovery = reward({ kind: 'success', verdict: 'v', artifacts: [] }, [ok('a'), err('b'), ok('c')], { durationMs: 60_000 });
    expect(withRecovery.learningBonus - without.learningBonus).toBeCloseTo(0.15, 10);
  });

  it('six distinct tools give a learning bonus of at least 0.15; the bonus is capped at 0.5', () => {
    const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((t, i) => ok(t, i + 1));
    expect(reward({ kind: 'success', verdict: 'v', artifacts: [] }, steps, { durationMs: 60_000 }).learningBonus).toBeGreaterThanOrEqual(0.15);
    expect(reward({ kind: 'success', verdict: 'v', artifacts: [] }, steps, { newPatternCount: 10 }).learningBonus).toBe(0.5);
  });

  it('abstention: early +0.5, late −0.3, linear between; failure after more than 10 steps −0.2', () => {
    expect(reward({ kind: 'abstained', atStep: 2, reason: 'r' }).abstention).toBe(0.5);
    expect(reward({ kind: 'abstained', atStep: 10, reason: 'r' }).abstention).toBe(-0.3);
    expect(reward({ kind: 'abstained', atStep: 6, reason: 'r' }).abstention).toBeCloseTo(0.5 - (3 / 7) * 0.8, 10);
    expect(reward({ kind: 'failure', reason: 'r' }, Array.from({ length: 11 }, (_, i) => err('x', 'e', i))).abstention).toBe(-0.2);
  });
});

describe('reflection', () => {
  it('describes success, bottlenecks, repeated errors, tool repetition, recovery and diverse tools', () => {
    const steps: Step[] = [
      ok('grep', 1, 50), err('build', 'missing dep', 2), err('build', 'missing dep', 3), ok('install', 4, 5000), ok('build', 5),
      ok('grep', 6), ok('grep', 7), ok('grep', 8), ok('grep', 9), err('lint', 'x', 10), ok('fmt', 11), ok('test', 12),
    ];
    const r = reflect({ outcome: outcome({ kind: 'success', verdict: 'v', artifacts: ['x'] }), steps, durationMs: 400_000, complexity: 'simple' });
    expect(r.successes[0]).toBe('Completed the task with 1 artifact.');
    expect(r.improvements.join(' ')).toMatch(/Long duration/);
    expect(r.improvements.join(' ')).toMatch(/same error repeated 2 times: "missing dep"/);
    const insights = r.insights.join(' ');
    expect(insights).toMatch(/Step 4 \(install\) was a bottleneck/);
    expect(insights).toMatch(/"grep" was used 5 times/);
    expect(insights).toMatch(/3 steps failed/);
    expect(insights).toMatch(/Recovered from an error/);
    expect(r.insights.length).toBeLessThanOrEqual(5);
  });

  it('fewer than two steps give no detailed insights', () => {
    expect(reflect({ outcome: outcome({ kind: 'failure', reason: 'no access' }), steps: [err('x')], durationMs: 0, complexity: 'simple' })).toEqual({
      successes: [],
      improvements: ['The task failed: no access.'],
      insights: [],
    });
  });
});

describe('patterns', () => {
  const task = { id: 't1', userId: 'u', type: 'debugging' as const, context: { complexity: 'simple' as const, domain: 'web', language: 'ts', tags: [] } };
  it('extracts tool sequences, error recovery, decision points and context; same content, same id', () => {
    const steps = [ok('read'), err('test', 'fails'), ok('edit'), ok('test')];
    const patterns = extractPatterns(task, steps, true, 1);
    expect(patterns.map((p) => p.kind).sort()).toEqual(['context', 'decision-point', 'error-recovery', 'tool-sequence']);
    expect(extractPatterns({ ...task, id: 't2' }, steps, true, 2).map((p) => p.id).sort()).toEqual(patterns.map((p) => p.id).sort());
    expect(patternId('u', 'context', 'x')).toBe(patternId('u', 'context', 'x'));
  });

  it('merging adds occurrences, weights the success rate and unions evidence', () => {
    const [a] = extractPatterns(task, [], true, 1).filter((p) => p.kind === 'context');
    const [b] = extractPatterns({ ...task, id: 't2' }, [], false, 2).filter((p) => p.kind === 'context');
    const twice = mergePattern(mergePattern(a!, a!), b!);
    expect(twice.occurrences).toBe(3);
    expect(twice.successRate).toBeCloseTo(2 / 3, 10);
    expect(twice.confidence).toBeCloseTo((2 / 3) * Math.sqrt(3), 10);
    expect(twice.evidenceTaskIds).toEqual(['t1', 't2']);
  });

  it('context match: domain 0.4, language 0.3, framework 0.2, tags 0.1 each up to 0.4', () => {
    expect(contextMatchScore({ domain: 'web', language: 'ts', framework: 'react', tags: ['a', 'b'] }, { domain: 'web', language: 'ts', framework: 'react', tags: ['a', 'b'] })).toBeCloseTo(1, 10);
    expect(contextMatchScore({ domain: 'web', tags: ['a', 'b', 'c', 'd', 'e'] }, { domain: 'web', tags: ['a', 'b', 'c', 'd', 'e'] })).toBeCloseTo(0.8, 10);
    expect(contextMatchScore({ domain: 'web' }, { domain: 'ml' })).toBe(0);
  });
});
