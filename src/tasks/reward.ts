import type { Complexity, ParsedOutcome, RewardBreakdown, StepRecord } from '../schema/task.js';

export interface RewardInput {
  outcome: ParsedOutcome;
  steps: Pick<StepRecord, 'tool' | 'result'>[];
  durationMs: number;
  complexity: Complexity;
  newPatternCount: number;
  metadata?: Record<string, unknown>;
  /** Efficiency weights (default 0.5 each). */
  weights?: { duration: number; steps: number };
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * total = max(0, base + abstention) × efficiency × complexityBonus × qualityMultiplier + learningBonus
 * Every part is returned so a caller (or the inspector) can see why.
 */
export function computeReward(input: RewardInput): RewardBreakdown {
  const { outcome, steps } = input;
  const n = steps.length;
  const errors = steps.filter((s) => s.result.kind !== 'success').length;

  let base: number;
  if (outcome.kind === 'success') base = 1;
  else if (outcome.kind === 'partial') {
    const done = outcome.completed.length;
    const total = done + outcome.failed.length;
    base = total === 0 ? 0.5 : done / total;
  } else if (outcome.kind === 'failure') base = 0;
  else base = 0.3;

  let abstention = 0;
  if (outcome.kind === 'abstained') {
    const at = outcome.atStep;
    abstention = at <= 3 ? 0.5 : at >= 10 ? -0.3 : 0.5 + ((at - 3) / 7) * -0.8;
  } else if (outcome.kind === 'failure' && n > 10) abstention = -0.2;

  const seconds = input.durationMs / 1000;
  const durationScore = input.durationMs === 0 ? 1.5 : 0.5 + Math.exp(-(seconds / 60) / 2);
  const stepScore = n === 0 ? 0.5 : 0.5 + Math.exp(-(n / 10) / 2);
  const w = input.weights ?? { duration: 0.5, steps: 0.5 };
  const efficiency = clamp(w.duration * durationScore + w.steps * stepScore, 0.5, 1.5);

  const complexityBonus = { simple: 1.0, moderate: 1.1, complex: 1.2 }[input.complexity];

  let quality = 1;
  if (outcome.kind === 'success') {
    if (outcome.artifacts.some((a) => /test|coverage/i.test(a))) quality += 0.1;
    if (outcome.artifacts.length >= 3) quality += 0.05;
    const coverage = Number(input.metadata?.test_coverage);
    if (coverage > 80) quality += 0.15;
    else if (coverage > 60) quality += 0.1;
  }
  if (n > 0) {
    const errorRate = errors / n;
    if (errorRate > 0.3) quality -= 0.2;
    else if (errorRate > 0.1) quality -= 0.1;
    else if (errorRate === 0) quality += 0.1;
  }
  const qualityMultiplier = clamp(quality, 0.5, 1.5);

  let learning = Math.min(0.1 * input.newPatternCount, 0.3);
  const tools = new Set(steps.map((s) => s.tool)).size;
  if (n >= 3) {
    if (tools >= 5) learning += 0.15;
    else if (tools >= 3) learning += 0.1;
  }
  const successRate = n ? (n - errors) / n : 0;
  if (successRate > 0.9 && n >= 5) learning += 0.2;
  else if (errors === 0 && n >= 3) learning += 0.15;
  if (steps.some((s, i) => s.result.kind === 'error' && steps[i + 1]?.result.kind === 'success')) learning += 0.15;
  if (seconds < 30 && n >= 1 && n <= 9) learning += 0.1;
  const learningBonus = Math.min(learning, 0.5);

  const total = Math.max(0, base + abstention) * efficiency * complexityBonus * qualityMultiplier + learningBonus;
  return { total, base, abstention, efficiency, durationScore, stepScore, complexityBonus, qualityMultiplier, learningBonus };
}
