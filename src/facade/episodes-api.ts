import type { CloseEpisodeResult } from '../memories/episodes/close-episode.js';
import * as episodeOps from '../operations/episodes.js';
import type { CloseEpisodeOptions } from '../schema/close-episode-options.js';
import type { Episode, EpisodeInput, EpisodePatch } from '../schema/episode.js';
import type { EpisodeListQuery } from '../schema/query.js';
import type { SequenceOptions } from '../schema/sequence-options.js';
import type { Invoke } from './forward.js';

/** `memory.episodes`: each method validates its input and forwards it to the engine. */
export function episodesApi(invoke: Invoke) {
  return {
    /**
     * Stores an episode (deduplicated against a near-identical one of the same user, chained to a recent similar one).
     */
    add: (input: EpisodeInput): Promise<Episode> => invoke(episodeOps.addEpisode, input),
    /** One episode; unknown id → NotFoundError. */
    get: (id: string): Promise<Episode> => invoke(episodeOps.getEpisode, id),
    /** A user's episodes, newest first, filtered by `query`. */
    list: (query: EpisodeListQuery = {}): Promise<Episode[]> => invoke(episodeOps.listEpisodes, query),
    /** Changes an episode's fields; returns the updated episode. */
    update: (id: string, patch: EpisodePatch): Promise<Episode> => invoke(episodeOps.updateEpisode, id, patch),
    /** Deletes an episode and its vector. */
    delete: (id: string): Promise<void> => invoke(episodeOps.deleteEpisode, id),
    /** The whole arc the episode belongs to, root first; safe against cycles. */
    chain: (id: string): Promise<Episode[]> => invoke(episodeOps.chainOfEpisode, id),
    /** Chronological replay: the episodes about `topic` (similarity above `minRelevance`), oldest first. */
    sequence: (topic: string, options: SequenceOptions = {}): Promise<Episode[]> => invoke(episodeOps.replayTopic, topic, options),
    /** The episodes that continue this one, oldest first. */
    children: (id: string): Promise<Episode[]> => invoke(episodeOps.childrenOfEpisode, id),
    /**
     * Closes an active episode: its state moves to `summarized` and `endedAt`
     * is set to now (unless the episode already records an end after its
     * start, or `options.endedAt` says otherwise). With an LLM provider, one
     * `episode-metadata` call adds participants, tools, entities, key
     * decisions, outcome and tags to what the app passed (the app's values
     * win; the model only adds). LLM failures never throw: the episode is
     * closed with the app's fields and the result says why (`reason`).
     * Unknown id → NotFoundError; an episode that is not active → ValidationError.
     */
    close: (id: string, options: CloseEpisodeOptions = {}): Promise<CloseEpisodeResult> => invoke(episodeOps.closeAnEpisode, id, options),
  };
}
