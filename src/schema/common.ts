import * as z from 'zod';

/**
 * Ids are opaque strings chosen by engram (or by the app). They are bounded and
 * free of control characters so they are safe as IndexedDB keys and in logs.
 */
export const idSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters');

/** Users scope every memory. Single-user apps can rely on the default. */
export const userIdSchema = idSchema;
export const DEFAULT_USER_ID = 'default';

/** Free text that gets embedded. Non-empty after trimming, bounded so one call cannot exhaust memory. */
export const MAX_TEXT_CHARS = 100_000;
export const textSchema = z
  .string()
  .max(MAX_TEXT_CHARS, `must be at most ${MAX_TEXT_CHARS} characters`)
  .refine((s) => s.trim().length > 0, 'must not be empty or whitespace only');

export const tagSchema = z.string().min(1).max(100);
export const tagsSchema = z.array(tagSchema).max(50, 'at most 50 tags');

/** Epoch milliseconds. */
export const timestampSchema = z.number().int().nonnegative().finite();

export const importanceSchema = z.number().min(0).max(1);

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
  return z.record(z.string().max(100), z.unknown()).refine((m) => {
    try {
      if (JSON.stringify(m).length > maxChars) return false;
      structuredClone(m);
      return true;
    } catch {
      return false;
    }
  }, `must be plain JSON data (no functions, cycles or BigInts) of at most ${maxChars.toLocaleString('en-US')} characters`);
}

export type Metadata = z.infer<typeof metadataSchema>;

export const memoryTypeSchema = z.enum(['episode', 'fact']);
export type MemoryType = z.infer<typeof memoryTypeSchema>;
