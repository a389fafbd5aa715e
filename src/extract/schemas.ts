import * as z from 'zod';
import { factCategorySchema } from '../schema/fact.js';

/** One fact as stage 1 extracts it. */
export const extractedFactSchema = z.object({
  text: z.string().min(3).max(500).describe('One sentence, third person, about the user'),
  category: factCategorySchema,
  importance: z.number().min(0).max(1),
});
export type ExtractedFact = z.infer<typeof extractedFactSchema>;

/** Stage 1 output: the facts and the episode decision, in one call. `hasEpisode` is required. */
export const stage1OutputSchema = z.object({
  facts: z.array(extractedFactSchema).max(20),
  hasEpisode: z.boolean(),
});
export type Stage1Output = z.infer<typeof stage1OutputSchema>;

const emptyToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

/** Stage 2 output: the structured episode. `lessons` is omitted when there is no genuine lesson. */
export const episodeDraftSchema = z.object({
  goal: z.string().min(10).max(300),
  context: z.string().min(10).max(500),
  approach: z.string().min(10).max(500),
  outcome: z.string().min(10).max(500),
  quality: z.enum(['success', 'partial', 'failure']),
  lessons: z.preprocess(emptyToUndefined, z.string().min(20).max(500).optional()),
  tags: z.array(z.string().min(1).max(50)).min(1).max(5),
  actors: z.array(z.string().min(1).max(100)).min(1).max(10),
});
export type EpisodeDraft = z.infer<typeof episodeDraftSchema>;
