import * as z from 'zod/mini';
import { withThousands } from '../text/thousands.js';

/**
 * Ids are opaque strings chosen by engram (or by the app). They are bounded and
 * free of control characters so they are safe as IndexedDB keys and in logs.
 */
export const idSchema = z
  .string()
  .check(
    // `abort`: an empty id is only that, not also "contains control characters".
    z.minLength(1, { error: 'must not be empty', abort: true }),
    z.maxLength(200, 'must be at most 200 characters'),
    z.regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters'),
  );

/** Users scope every memory. Single-user apps can rely on the default. */
export const userIdSchema = idSchema;
/** The user a memory belongs to when a call names none: single-user apps can leave `userId` out everywhere. */
export const DEFAULT_USER_ID = 'default';

/** Free text that gets embedded. Non-empty after trimming, bounded so one call cannot exhaust memory. */
export const MAX_TEXT_CHARS = 100_000;
export const textSchema = z
  .string()
  .check(
    z.maxLength(MAX_TEXT_CHARS, `must be at most ${MAX_TEXT_CHARS} characters`),
    z.refine((s) => s.trim().length > 0, 'must not be empty or whitespace only'),
  );

export const tagSchema = z.string().check(z.minLength(1), z.maxLength(100));
export const tagsSchema = z.array(tagSchema).check(z.maxLength(50, 'at most 50 tags'));

/** Epoch milliseconds. */
export const timestampSchema = z.number().check(z.int(), z.nonnegative());

export const importanceSchema = z.number().check(z.gte(0), z.lte(1));

/**
 * App-defined metadata: JSON-like values only, bounded in size. Filters in
 * `recall` and `list` match on top-level keys.
 */
export const metadataSchema = jsonRecordSchema(100_000);

/**
 * A record of plain data that survives both IndexedDB (structured clone) and
 * the JSON export: no functions, symbols, cycles or BigInts. Checked up
 * front, so a bad value is a ValidationError instead of a failed write (or an
 * export that can no longer be serialised).
 */
export function jsonRecordSchema(maxChars: number) {
  return z.record(z.string().check(z.maxLength(100)), z.unknown()).check(z.refine((m) => {
    try {
      if (JSON.stringify(m).length > maxChars) return false;
      structuredClone(m);
      return true;
    } catch {
      return false;
    }
  }, `must be plain JSON data (no functions, cycles or BigInts) of at most ${withThousands(maxChars)} characters`));
}

/** Free-form plain JSON data an app attaches to a memory (`metadata`); `filter` can match its top-level keys. */
export type Metadata = z.infer<typeof metadataSchema>;

export const memoryTypeSchema = z.enum(['episode', 'fact', 'turn']);
/** The kinds of memory `recall` returns: `'episode'`, `'fact'` or `'turn'` (`types` selects them). */
export type MemoryType = z.infer<typeof memoryTypeSchema>;
