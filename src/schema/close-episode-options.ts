import * as z from 'zod';
import { timestampSchema } from './common.js';

/** What `memory.episodes.close(id, options)` takes (see src/lifecycle/close-episode.ts). */
export const closeEpisodeOptionsSchema = z
  .object({
    /** When the episode ended; by default now, unless the episode already records an end after its start. */
    endedAt: timestampSchema.optional(),
  })
  .strict();
export type CloseEpisodeOptions = z.input<typeof closeEpisodeOptionsSchema>;
