import * as z from 'zod/mini';
import english from 'zod/v4/locales/en.js';

/**
 * zod/mini carries no messages of its own (its issues say "Invalid input"
 * until a locale is configured). engram's messages are English, given per
 * parse rather than with `z.config()`, which would change the app's own zod.
 * An app's `z.config({ customError })` cannot reword engram's messages either:
 * the per-parse map comes first.
 */
const { localeError } = english();

/** `schema.safeParse(value)` with zod's English messages. */
export function safeParse<S extends z.ZodMiniType>(schema: S, value: unknown): z.core.util.SafeParseResult<z.output<S>> {
  return schema.safeParse(value, { error: localeError }) as z.core.util.SafeParseResult<z.output<S>>;
}
