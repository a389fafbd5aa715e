import { closeEpisode } from '../../memories/episodes/close-episode.js';
import { writeEpisode } from '../../memories/episodes/write-episode.js';
import type { EPISODE_OPERATIONS } from '../../operations/episodes.js';
import type { HandlersOf } from './handler.js';

/** What each episode operation does (operations/episodes.ts declares them). */
export const EPISODE_HANDLERS = {
  'episodes.add': async ({ ctx }, [input]) => (await writeEpisode(ctx, input)).episode,
  'episodes.get': ({ episodes }, [id]) => episodes.get(id),
  'episodes.list': ({ episodes }, [query]) => episodes.list(query),
  'episodes.update': ({ episodes }, [id, patch]) => episodes.update(id, patch),
  'episodes.delete': ({ episodes }, [id]) => episodes.delete(id),
  'episodes.chain': ({ episodes }, [id]) => episodes.chain(id),
  'episodes.sequence': ({ episodes }, [topic, options]) => episodes.sequence(topic, options),
  'episodes.children': ({ episodes }, [id]) => episodes.children(id),
  'episodes.close': ({ ctx, llm, extraction, closing }, [id, options]) =>
    closeEpisode(ctx, { llm, model: extraction.model, timeoutMs: extraction.timeoutMs, signal: closing.signal }, id, options),
} satisfies HandlersOf<typeof EPISODE_OPERATIONS>;
