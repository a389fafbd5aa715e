import type * as z from 'zod/mini';
import { safeParse } from './safe-parse.js';
import { ValidationError } from '../errors.js';
import { describeThrown, NotPlainData, plainDataCopy } from './plain-data.js';
import { schemaForInput } from './present-members.js';

/**
 * Validates a public input against its schema and returns what to write. On
 * failure throws a ValidationError whose message names the call and every
 * wrong field, e.g. `episodes.add: text: must not be empty or whitespace only`.
 *
 * The schema checks a plain-data copy of the input (schema/plain-data.ts),
 * and what comes back is built from that copy: validate a copy, write what
 * was validated. `{ copy: false }` is for option objects that carry functions
 * and host objects (createMemory's embedder, IndexedDB factory, LLM
 * provider); zod still rebuilds their plain-data parts as it parses.
 *
 * An object schema parses with the members the input has and its required
 * ones (schema/present-members.ts): the same result, without building the
 * schemas of options the call does not use.
 */
export function parseInput<S extends z.ZodMiniType>(schema: S, value: unknown, where: string, options: { copy?: boolean } = {}): z.output<S> {
  let input = value;
  if (options.copy !== false) {
    try {
      input = plainDataCopy(value);
    } catch (error) {
      if (!(error instanceof NotPlainData)) throw error;
      throw new ValidationError(`${where}: ${error.message}`, [{ path: error.path, message: error.reason }]);
    }
  }
  let result: ReturnType<typeof safeParse<S>>;
  try {
    result = safeParse(schemaForInput(schema, input), input);
  } catch (error) {
    // A getter or Proxy in an uncopied input threw while being read: the input is unusable, say so in a typed error.
    const message = `could not be read (${describeThrown(error)})`;
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
