import * as z from 'zod/mini';
import { timestampSchema } from './common.js';

/** What `memory.episodes.close(id, options)` takes (see src/memories/episodes/close-episode.ts). */
export const closeEpisodeOptionsSchema = z.strictObject({
  /** When the episode ended; by default now, unless the episode already records an end after its start. */
  endedAt: z.optional(timestampSchema),
});
/**
 * Options of `memory.episodes.close(id, options)`: the metadata the app already knows, and when the episode ended.
 * @interface
 */
export type CloseEpisodeOptions = z.input<typeof closeEpisodeOptionsSchema>;
