import type { Complexity, ParsedOutcome, Reflection, StepRecord } from '../schema/task.js';

export interface ReflectionInput {
  outcome: ParsedOutcome;
  steps: Pick<StepRecord, 'tool' | 'result' | 'latencyMs' | 'tokens' | 'index'>[];
  durationMs: number;
  complexity: Complexity;
  /** Items per list (default 5). */
  maxItems?: number;
}

const TYPICAL_STEPS: Record<Complexity, number> = { simple: 5, moderate: 15, complex: 30 };

/**
 * A plain-English reflection derived from the steps and the outcome only (no
 * LLM). Fewer than two steps give no detailed insights.
 */
export function reflect(input: ReflectionInput): Reflection {
  const { outcome, steps } = input;
  const max = input.maxItems ?? 5;
  const successes: string[] = [];
  const improvements: string[] = [];
  const insights: string[] = [];
  const n = steps.length;
  const errorSteps = steps.filter((s) => s.result.kind !== 'success');
  const successRate = n ? (n - errorSteps.length) / n : 0;
  const seconds = input.durationMs / 1000;

  if (outcome.kind === 'success') {
    successes.push(`Completed the task${outcome.artifacts.length ? ` with ${outcome.artifacts.length} artifact${outcome.artifacts.length === 1 ? '' : 's'}` : ''}.`);
  }
  if (outcome.kind === 'partial' && outcome.completed.length) successes.push(`Completed ${outcome.completed.length} of ${outcome.completed.length + outcome.failed.length} subtasks.`);
  if (n > 0 && successRate >= 0.9) successes.push(`High step success rate: ${Math.round(successRate * 100)}% of ${n} steps succeeded.`);
  if (outcome.kind === 'success' && n > 0 && n <= TYPICAL_STEPS[input.complexity] && seconds < 60) {
    successes.push(`Efficient execution: ${n} step${n === 1 ? '' : 's'} in ${seconds.toFixed(1)} s.`);
  }

  if (outcome.kind === 'failure') improvements.push(`The task failed: ${outcome.reason}.`);
  if (outcome.kind === 'partial' && outcome.failed.length) improvements.push(`Failed subtasks: ${outcome.failed.join(', ')}.`);
  if (outcome.kind === 'abstained') improvements.push(`Abstained at step ${outcome.atStep}: ${outcome.reason}.`);
  if (seconds > 300) improvements.push(`Long duration: ${Math.round(seconds)} s; look for steps to cut or parallelise.`);
  if (n > 50) improvements.push(`Many steps (${n}); consider a more direct approach.`);

  if (n >= 2) {
    const messages = new Map<string, number>();
    for (const s of steps) if (s.result.kind === 'error') messages.set(s.result.message, (messages.get(s.result.message) ?? 0) + 1);
    for (const [message, count] of messages) if (count > 1) improvements.push(`The same error repeated ${count} times: "${message.slice(0, 120)}".`);

    const mean = steps.reduce((sum, s) => sum + s.latencyMs, 0) / n;
    const bottleneck = steps.reduce((a, b) => (b.latencyMs > a.latencyMs ? b : a));
    if (bottleneck.latencyMs > 3 * mean && bottleneck.latencyMs > 1000) {
      insights.push(`Step ${bottleneck.index} (${bottleneck.tool}) was a bottleneck: ${Math.round(bottleneck.latencyMs)} ms against a mean of ${Math.round(mean)} ms.`);
    }
    const toolCounts = new Map<string, number>();
    for (const s of steps) toolCounts.set(s.tool, (toolCounts.get(s.tool) ?? 0) + 1);
    for (const [tool, count] of toolCounts) if (count >= 5) insights.push(`The tool "${tool}" was used ${count} times; a batch operation may help.`);
    if (errorSteps.length >= 3) insights.push(`${errorSteps.length} steps failed: a systematic issue is likely.`);
    const tokens = steps.reduce((sum, s) => sum + (s.tokens ?? 0), 0);
    if (tokens > 10_000) insights.push(`Heavy token use: ${tokens.toLocaleString('en-US')} tokens.`);
    if (steps.some((s, i) => s.result.kind !== 'success' && steps[i + 1]?.result.kind === 'success')) insights.push('Recovered from an error and continued successfully.');
    if (toolCounts.size > 5) insights.push(`Used a diverse toolset of ${toolCounts.size} tools.`);
    if (n > TYPICAL_STEPS[input.complexity]) insights.push(`Took ${n} steps, more than typical for a ${input.complexity} task (${TYPICAL_STEPS[input.complexity]}).`);
  }

  return { successes: successes.slice(0, max), improvements: improvements.slice(0, max), insights: insights.slice(0, max) };
}
