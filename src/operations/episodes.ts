/** The episode operations: "what happened, what we learned" (engine/handlers/episodes.ts runs them). */
import { closeEpisodeOptionsSchema } from '../schema/close-episode-options.js';
import { idSchema, textSchema } from '../schema/common.js';
import { withDefaultUser } from '../schema/default-user.js';
import { episodeInputSchema, episodePatchSchema } from '../schema/episode.js';
import { episodeListQuerySchema } from '../schema/query.js';
import { sequenceOptionsSchema } from '../schema/sequence-options.js';
import { byIdOperation, defineOperation, listOperation, param, updateOperation } from './operation.js';

/** `episodes.list` and a live list of episodes (facade/live-spec.ts) take this. */
export const episodeListQuery = withDefaultUser(episodeListQuerySchema);

export const addEpisode = defineOperation({ method: 'episodes.add', name: 'add an episode', input: [param(withDefaultUser(episodeInputSchema))] });

export const getEpisode = byIdOperation('episodes.get', 'get an episode');

export const listEpisodes = listOperation('episodes.list', 'list episodes', episodeListQuery);

export const updateEpisode = updateOperation('episodes.update', 'update an episode', episodePatchSchema);

export const deleteEpisode = byIdOperation('episodes.delete', 'delete an episode');

/** The arc this episode belongs to: ancestors root-first, the episode, then its descendants by start time. */
export const chainOfEpisode = byIdOperation('episodes.chain', 'read a chain');

/** Chronological replay of a topic (see recall/sequence.ts). */
export const replayTopic = defineOperation({
  method: 'episodes.sequence',
  name: 'replay a topic',
  input: [param(textSchema, 'topic'), param(withDefaultUser(sequenceOptionsSchema))],
});

export const childrenOfEpisode = byIdOperation('episodes.children', 'list children');

/** Closes an active episode (→ summarized), extracting its structured metadata when a provider is configured (memories/episodes/close-episode.ts). */
export const closeAnEpisode = defineOperation({ method: 'episodes.close', name: 'close an episode', input: [param(idSchema, 'id'), param(closeEpisodeOptionsSchema)] });

export const EPISODE_OPERATIONS = [addEpisode, getEpisode, listEpisodes, updateEpisode, deleteEpisode, chainOfEpisode, replayTopic, childrenOfEpisode, closeAnEpisode] as const;
