import { LimitError } from '../errors.js';
import type { ParsedOutcome, StepInput } from '../schema/task.js';

/** Input limits for task episodes. Every breach is a LimitError and nothing is written. */
export const LIMITS = {
  descriptionBytes: 10_000,
  stepsPerTask: 1_000,
  stepOutputBytes: 10_000,
  /** A parameter whose key contains artifact/data/content/file. */
  largeParameterBytes: 1_000_000,
  parametersBytes: 1_000_000,
  /** The verdict, reason or details of the outcome `complete()` is given, each. */
  outcomeTextBytes: 10_000,
  /** The whole outcome serialised (its lists of artifacts, completed and failed parts included). */
  outcomeBytes: 100_000,
  taskBytes: 10_000_000,
} as const;

const encoder = new TextEncoder();
export const utf8Bytes = (text: string): number => encoder.encode(text).length;

function check(field: string, actual: number, limit: number, unit = 'bytes'): void {
  if (actual > limit) throw new LimitError(`${field} is ${actual.toLocaleString('en-US')} ${unit}; the limit is ${limit.toLocaleString('en-US')}.`, { field, limit, actual });
}

export function checkDescription(description: string): void {
  check('description', utf8Bytes(description), LIMITS.descriptionBytes);
}

const LARGE_KEY = /artifact|data|content|file/i;

export function checkStep(step: Pick<StepInput, 'result' | 'parameters'>, stepNumber: number): void {
  check('step number', stepNumber, LIMITS.stepsPerTask, 'steps');
  if (step.result.kind === 'success') check('step output', utf8Bytes(step.result.output), LIMITS.stepOutputBytes);
  if (step.result.kind === 'error') check('step error message', utf8Bytes(step.result.message), LIMITS.stepOutputBytes);
  const parameters = step.parameters ?? {};
  for (const [key, value] of Object.entries(parameters)) {
    if (LARGE_KEY.test(key)) check(`parameter "${key}"`, utf8Bytes(serialise(value)), LIMITS.largeParameterBytes);
  }
  check('parameters', utf8Bytes(serialise(parameters)), LIMITS.parametersBytes);
}

/** The outcome of `task.complete()`: each of its texts (verdict, reason, details) as a step's output, the whole a hundred times that. */
export function checkOutcome(outcome: ParsedOutcome): void {
  for (const [field, value] of Object.entries(outcome)) {
    if (typeof value === 'string') check(`outcome ${field}`, utf8Bytes(value), LIMITS.outcomeTextBytes);
  }
  check('outcome', utf8Bytes(JSON.stringify(outcome)), LIMITS.outcomeBytes);
}

export function checkTaskSize(serialisedTask: string): void {
  check('serialised task', utf8Bytes(serialisedTask), LIMITS.taskBytes);
}

function serialise(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    throw new LimitError('A parameter cannot be serialised (a cycle or a BigInt).', { field: 'parameters', limit: 0, actual: 0 });
  }
}
