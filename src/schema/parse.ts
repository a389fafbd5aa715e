import type { z } from 'zod';
import { ValidationError } from '../errors.js';

/**
 * Validates a public input against its schema. On failure throws a
 * ValidationError whose message names the call and every wrong field, e.g.
 * `episodes.add: text: must not be empty or whitespace only`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>;
  } catch (error) {
    // A getter or Proxy in the input threw while being read: the input is unusable, say so in a typed error.
    const message = `could not be read (${(error as Error)?.message ?? String(error)})`;
    throw new ValidationError(`${where}: ${message}`, [{ path: '', message }]);
  }
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const summary = issues
    .slice(0, 5)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join('; ');
  throw new ValidationError(`${where}: ${summary}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`, issues);
}
