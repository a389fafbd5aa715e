/** The episode operations: "what happened, what we learned" (lifecycle/). */
import { closeEpisode } from '../lifecycle/close-episode.js';
import { writeEpisode } from '../lifecycle/write-episode.js';
import { closeEpisodeOptionsSchema } from '../schema/close-episode-options.js';
import { idSchema, textSchema } from '../schema/common.js';
import { withDefaultUser } from '../schema/default-user.js';
import { episodeInputSchema, episodePatchSchema } from '../schema/episode.js';
import { episodeListQuerySchema } from '../schema/query.js';
import { sequenceOptionsSchema } from '../schema/sequence-options.js';
import { byIdOperation, defineOperation, listOperation, param, updateOperation } from './operation.js';

/** `episodes.list` and a live list of episodes (facade/live-spec.ts) take this. */
export const episodeListQuery = withDefaultUser(episodeListQuerySchema);

export const addEpisode = defineOperation({
  method: 'episodes.add',
  name: 'add an episode',
  input: [param(withDefaultUser(episodeInputSchema))],
  handler: async ({ ctx }, [input]) => (await writeEpisode(ctx, input)).episode,
});

export const getEpisode = byIdOperation('episodes.get', 'get an episode', ({ episodes }, id) => episodes.get(id));

export const listEpisodes = listOperation('episodes.list', 'list episodes', episodeListQuery, ({ episodes }, query) => episodes.list(query));

export const updateEpisode = updateOperation('episodes.update', 'update an episode', episodePatchSchema, ({ episodes }, id, patch) => episodes.update(id, patch));

export const deleteEpisode = byIdOperation('episodes.delete', 'delete an episode', ({ episodes }, id) => episodes.delete(id));

/** The arc this episode belongs to: ancestors root-first, the episode, then its descendants by start time. */
export const chainOfEpisode = byIdOperation('episodes.chain', 'read a chain', ({ episodes }, id) => episodes.chain(id));

/** Chronological replay of a topic (see recall/sequence.ts). */
export const replayTopic = defineOperation({
  method: 'episodes.sequence',
  name: 'replay a topic',
  input: [param(textSchema, 'topic'), param(withDefaultUser(sequenceOptionsSchema))],
  handler: ({ episodes }, [topic, options]) => episodes.sequence(topic, options),
});

export const childrenOfEpisode = byIdOperation('episodes.children', 'list children', ({ episodes }, id) => episodes.children(id));

/** Closes an active episode (→ summarized), extracting its structured metadata when a provider is configured (lifecycle/close-episode.ts). */
export const closeAnEpisode = defineOperation({
  method: 'episodes.close',
  name: 'close an episode',
  input: [param(idSchema, 'id'), param(closeEpisodeOptionsSchema)],
  handler: ({ ctx, llm, extraction, closing }, [id, options]) =>
    closeEpisode(ctx, { llm, model: extraction.model, timeoutMs: extraction.timeoutMs, signal: closing.signal }, id, options),
});

export const EPISODE_OPERATIONS = [addEpisode, getEpisode, listEpisodes, updateEpisode, deleteEpisode, chainOfEpisode, replayTopic, childrenOfEpisode, closeAnEpisode] as const;
