import * as z from 'zod/mini';
import type { EngineContext } from '../../engine-context.js';
import { ValidationError } from '../../errors.js';
import type { CallFailure } from '../../llm/call-llm.js';
import { extractEpisodeMetadata, mergeMetadata, type EpisodeMetadata } from './episode-metadata.js';
import type { LLMProvider } from '../../llm/types.js';
import type { closeEpisodeOptionsSchema } from '../../schema/close-episode-options.js';
import type { Episode } from '../../schema/episode.js';
import { readRecord } from '../../store/read-record.js';
import { EPISODES } from '../registry.js';

export { closeEpisodeOptionsSchema, type CloseEpisodeOptions } from '../../schema/close-episode-options.js';

/** Why the structured metadata was not extracted (the episode was closed anyway). */
export type CloseEpisodeReason = 'no_llm' | `metadata_${CallFailure}`;

/** What `memory.episodes.close(id)` returns: the closed episode, and whether an LLM added its metadata. */
export interface CloseEpisodeResult {
  /** The closed episode, now `summarized`. */
  episode: Episode;
  /** 'extracted': the LLM's metadata was merged in; 'kept': the fields are exactly what the app passed. */
  metadata: 'extracted' | 'kept';
  /** Present when metadata is 'kept': no provider, or how the call failed. */
  reason?: CloseEpisodeReason;
  /** Human-readable detail for `reason`. */
  detail?: string;
  /** USD spent by the metadata call. */
  costUsd: number;
}

export interface CloseEpisodeDeps {
  llm: LLMProvider | undefined;
  model?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Closes an episode: active → summarized. With an LLM provider, one
 * `episode-metadata` call extracts participants, tools, entities, key
 * decisions, outcome and tags, merged into the app's values (see
 * `mergeMetadata`: the app's values win, the model only adds). Every failure
 * of that call (timeout, provider error, non-JSON, schema mismatch, error
 * flag) keeps the app's fields and still closes, with the reason in the
 * result and in the `events` table. Without a provider, only the state moves.
 *
 * `endedAt`: the option if given; otherwise kept when the episode already
 * records an end after its start (the app set one), else set to now.
 *
 * Only an active episode can be closed (state only moves forward); anything
 * else is a ValidationError and nothing is written.
 */
export async function closeEpisode(ctx: EngineContext, deps: CloseEpisodeDeps, id: string, options: z.output<typeof closeEpisodeOptionsSchema>): Promise<CloseEpisodeResult> {
  const current = await readActive(ctx, id);
  if (options.endedAt !== undefined && options.endedAt < current.startedAt) {
    throw new ValidationError(`An episode cannot end before it started (startedAt ${current.startedAt}).`, [{ path: 'endedAt', message: 'is before startedAt' }]);
  }

  // The LLM call runs outside any transaction: IndexedDB would commit one that waits on the network.
  let metadata: CloseEpisodeResult['metadata'] = 'kept';
  let reason: CloseEpisodeReason | undefined;
  let detail: string | undefined;
  let costUsd = 0;
  let extracted: EpisodeMetadata | undefined;
  if (!deps.llm) {
    reason = 'no_llm';
    detail = 'no LLM provider is configured';
  } else {
    const call = await extractEpisodeMetadata(deps.llm, current, { model: deps.model, timeoutMs: deps.timeoutMs, signal: deps.signal });
    costUsd = call.costUsd;
    if (call.ok) {
      metadata = 'extracted';
      extracted = call.value;
    } else {
      reason = `metadata_${call.failure}`;
      detail = call.reason;
    }
  }

  const now = ctx.now();
  const { db } = ctx;
  const closed = await ctx.commit(`close episode "${id}"`, [EPISODES, 'events'], async (scope) => {
      // Re-read: the episode may have changed (or gone) while the LLM was thinking; the app's latest values win.
      const latest = await readActive(ctx, id);
      const next: Episode = {
        ...latest,
        ...(extracted ? mergeMetadata(latest, extracted) : {}),
        state: 'summarized',
        endedAt: options.endedAt ?? (latest.endedAt > latest.startedAt ? latest.endedAt : Math.max(now, latest.startedAt)),
        updatedAt: now,
      };
      await scope.put(EPISODES, [next]);
      await db.events.add({ type: 'episode-close', userId: next.userId, at: now, data: { episodeId: id, metadata, ...(reason ? { reason } : {}), ...(detail ? { detail } : {}), costUsd } });
      return next;
  });

  const result: CloseEpisodeResult = { episode: closed, metadata, costUsd };
  if (reason) result.reason = reason;
  if (detail) result.detail = detail;
  return result;
}

async function readActive(ctx: EngineContext, id: string): Promise<Episode> {
  const episode = await readRecord(ctx.db, EPISODES, id);
  if (episode.state !== 'active') {
    throw new ValidationError(`Episode "${id}" is already ${episode.state}; only an active episode can be closed.`, [{ path: 'state', message: `is "${episode.state}", expected "active"` }]);
  }
  return episode;
}
