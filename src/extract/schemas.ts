import * as z from 'zod/mini';
import { factCategorySchema } from '../schema/fact.js';

/** One fact as stage 1 extracts it. */
export const extractedFactSchema = z.object({
  text: z.string().check(z.minLength(3), z.maxLength(500), z.describe('One sentence, third person, about the user')),
  category: factCategorySchema,
  importance: z.number().check(z.gte(0), z.lte(1)),
});
export type ExtractedFact = z.infer<typeof extractedFactSchema>;

/** Stage 1 output: the facts and the episode decision, in one call. `hasEpisode` is required. */
export const stage1OutputSchema = z.object({
  facts: z.array(extractedFactSchema).check(z.maxLength(20)),
  hasEpisode: z.boolean(),
});
export type Stage1Output = z.infer<typeof stage1OutputSchema>;

const emptyToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

/** Stage 2 output: the structured episode. `lessons` is omitted when there is no genuine lesson. */
export const episodeDraftSchema = z.object({
  goal: z.string().check(z.minLength(10), z.maxLength(300)),
  context: z.string().check(z.minLength(10), z.maxLength(500)),
  approach: z.string().check(z.minLength(10), z.maxLength(500)),
  outcome: z.string().check(z.minLength(10), z.maxLength(500)),
  quality: z.enum(['success', 'partial', 'failure']),
  lessons: z.pipe(z.transform(emptyToUndefined), z.optional(z.string().check(z.minLength(20), z.maxLength(500)))),
  tags: z.array(z.string().check(z.minLength(1), z.maxLength(50))).check(z.minLength(1), z.maxLength(5)),
  actors: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(10)),
});
export type EpisodeDraft = z.infer<typeof episodeDraftSchema>;
