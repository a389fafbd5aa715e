import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';

/**
 * A time a memory's text gives relative to when it was written ("yesterday",
 * "last week", "next month", "two years ago"), resolved against the
 * memory's own `createdAt`: the calendar `grain` that holds the time, as an
 * `offset` from the one that holds `createdAt`. "yesterday" is
 * `{ grain: 'day', offset: -1 }`, "last week" `{ grain: 'week', offset: -1 }`.
 *
 * An offset rather than a date, so `formatContext` can show the absolute
 * date in the time zone it renders in, consistent with the memory's own
 * date on the same line.
 */
export const timeMentionSchema = lazySchema(() => z.object({
  /** The words as they appear in the text. */
  text: z.string().check(z.minLength(1), z.maxLength(100)),
  grain: z.enum(['day', 'week', 'month', 'year']),
  /** Whole grains from the one `createdAt` falls in: -1 is the one before (bounded to about 270 years either way). */
  offset: z.number().check(z.int(), z.gte(-100_000), z.lte(100_000)),
}));
/**
 * A time a memory's text gives relative to when it was written ("last week"): `RecallHit.times`.
 * @interface
 */
export type TimeMention = z.infer<typeof timeMentionSchema>;
