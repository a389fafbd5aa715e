import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/** createMemory's `turns`: when `observe()` keeps the conversation itself, and for how long. */
export const turnOptionsSchema = lazySchema(() => z.strictObject({
  /**
   * When `observe()` stores the exchange as two `turn` memories (the user's
   * message and the assistant's): `'without-llm'` (default) when no LLM
   * provider is configured, so recall works with no provider; `'always'`
   * beside the facts an LLM extracts; `'never'`.
   */
  keep: z.optional(z.enum(['without-llm', 'always', 'never'])),
  /** Per-user cap on (unpinned) turns; the oldest go first (default 10,000). */
  maxPerUser: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_000_000))),
  /** Unpinned turns older than this many days go (default 0: never). */
  ttlDays: z.optional(z.number().check(z.gte(0), z.lte(100_000))),
}));
/**
 * `createMemory({ turns })`: when `observe()` keeps the exchange as turns (`keep`), and how many and how long.
 * @interface
 */
export type TurnOptions = z.input<typeof turnOptionsSchema>;
