import type { PatternKind, PatternRecord, StepRecord, TaskContext, TaskRecord } from '../schema/task.js';
import { fnv1a } from '../text/fnv1a.js';

type PatternDraft = Omit<PatternRecord, 'confidence' | 'createdAt' | 'updatedAt'>;

/**
 * Reusable patterns from one completed task:
 * - tool sequences of successful tasks (the ordered distinct tool chain);
 * - error recovery: an error step and the step that fixed it (the next success);
 * - decision points: where the agent switched tools after a failure;
 * - context: which domain/language/framework this kind of task succeeded or failed in.
 * Ids come from the content, so the same pattern found again merges.
 */
export function extractPatterns(task: Pick<TaskRecord, 'id' | 'userId' | 'context' | 'type'>, steps: Pick<StepRecord, 'tool' | 'action' | 'result'>[], succeeded: boolean, now: number): PatternRecord[] {
  const drafts: PatternDraft[] = [];
  const base = { userId: task.userId, domain: task.context.domain, language: task.context.language ?? null, evidenceTaskIds: [task.id], occurrences: 1 };

  if (succeeded && steps.length >= 2) {
    const tools = steps.map((s) => s.tool).filter((t, i, all) => t !== all[i - 1]);
    if (tools.length >= 2) drafts.push({ ...base, id: '', kind: 'tool-sequence', description: `For ${task.type} in ${task.context.domain}: ${tools.join(' → ')}`, tools, successRate: 1 });
  }
  steps.forEach((step, i) => {
    if (step.result.kind === 'success') return;
    const fix = steps.slice(i + 1).find((s) => s.result.kind === 'success');
    if (!fix) return;
    const error = step.result.kind === 'error' ? step.result.message.slice(0, 80) : 'timeout';
    drafts.push({ ...base, id: '', kind: 'error-recovery', description: `After "${error}" from ${step.tool}, ${fix.tool} (${fix.action.slice(0, 60)}) fixed it`, tools: [step.tool, fix.tool], successRate: 1 });
    const next = steps[i + 1];
    if (next && next.tool !== step.tool) {
      drafts.push({ ...base, id: '', kind: 'decision-point', description: `When ${step.tool} fails, switch to ${next.tool}`, tools: [step.tool, next.tool], successRate: next.result.kind === 'success' ? 1 : 0 });
    }
  });
  const where = [task.context.domain, task.context.language, task.context.framework].filter(Boolean).join(' / ');
  drafts.push({ ...base, id: '', kind: 'context', description: `${task.type} tasks in ${where}`, tools: [], successRate: succeeded ? 1 : 0 });

  const byId = new Map<string, PatternRecord>();
  for (const d of drafts) {
    const record: PatternRecord = { ...d, id: patternId(d.userId, d.kind, d.description), confidence: d.successRate, createdAt: now, updatedAt: now };
    const existing = byId.get(record.id);
    byId.set(record.id, existing ? mergePattern(existing, record) : record);
  }
  return [...byId.values()];
}

export function patternId(userId: string, kind: PatternKind, description: string): string {
  return `pattern:${kind}:${fnv1a(`${userId}\u0000${kind}\u0000${description}`)}`;
}

/** Identical patterns merge: occurrences add, success rate is occurrence-weighted, evidence unions. */
export function mergePattern(existing: PatternRecord, incoming: PatternRecord): PatternRecord {
  const occurrences = existing.occurrences + incoming.occurrences;
  const successRate = (existing.successRate * existing.occurrences + incoming.successRate * incoming.occurrences) / occurrences;
  return {
    ...existing,
    occurrences,
    successRate,
    confidence: successRate * Math.sqrt(occurrences),
    evidenceTaskIds: [...new Set([...existing.evidenceTaskIds, ...incoming.evidenceTaskIds])],
    updatedAt: Math.max(existing.updatedAt, incoming.updatedAt),
  };
}

/** A pattern is relevant to a context when its domain or its language matches. */
export function patternMatchesContext(pattern: PatternRecord, context: Partial<TaskContext>): boolean {
  return (!!context.domain && pattern.domain === context.domain) || (!!context.language && pattern.language === context.language);
}
