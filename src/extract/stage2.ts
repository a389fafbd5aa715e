import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import type { JobHandler, JobResult } from '../jobs/queue.js';
import { findEpisode } from '../memories/episodes/episode-queries.js';
import { writeEpisode } from '../memories/episodes/write-episode.js';
import { EPISODES } from '../memories/registry.js';
import type { LLMProvider } from '../llm/types.js';
import type { Episode } from '../schema/episode.js';
import { episodeIndexText } from '../schema/episode.js';
import type { EpisodeEvent } from '../telemetry/events.js';
import { callLLM } from '../llm/call-llm.js';
import { captureKey, readCaptureState } from './capture.js';
import { renderExchange } from '../llm/exchange.js';
import type { ResolvedExtraction } from './resolve-extraction.js';
import { PROMPT_VERSION, STAGE2_SYSTEM } from './prompts.js';
import { episodeDraftSchema, type EpisodeDraft } from './schemas.js';

/** The payload of a stage-2 job: the full, untruncated exchange. */
export interface EpisodeJobPayload {
  userId: string;
  sessionId: string | null;
  user: string;
  assistant: string;
}

export const EPISODE_JOB = 'episode';

/**
 * Stage 2: writes the episode in the background. Runs as a durable job with
 * a concurrency of one per user (the queue's per-user lane), so `durationMs`
 * starts when this user's slot was acquired. Exactly one `episode` event per
 * attempt; none when the attempt was cancelled by `close()`.
 */
export function episodeJobHandler(
  ctx: EngineContext,
  deps: { llm: LLMProvider | undefined; options: ResolvedExtraction },
): JobHandler {
  return async (job, signal): Promise<JobResult> => {
    const payload = job.payload as EpisodeJobPayload;
    const started = ctx.now();
    const { options } = deps;
    const { llm } = deps;
    const event = async (outcome: EpisodeEvent['outcome'], extra: { memoryId?: string; reason?: string; costUsd: number }) => {
      const e: EpisodeEvent = { type: 'episode', userId: payload.userId, outcome, costUsd: extra.costUsd, durationMs: Math.max(0, ctx.now() - started) };
      if (extra.memoryId !== undefined) e.memoryId = extra.memoryId;
      if (extra.reason !== undefined) e.reason = extra.reason;
      // Told once its audit row has committed, like every audited event; told anyway when that commit fails (the
      // database closed meanwhile), so each attempt still reports exactly once.
      await ctx.commit('record an episode event', ['events'], (scope) => scope.audit(e, ctx.now())).catch(() => ctx.emit(e));
    };
    if (!llm) {
      await event('provider_error', { reason: 'no LLM provider is configured', costUsd: 0 });
      return { kind: 'drop', reason: 'no LLM provider' };
    }

    const result = await callLLM(llm, {
      task: 'episode',
      system: STAGE2_SYSTEM,
      input: renderExchange(payload.user, payload.assistant),
      schema: episodeDraftSchema,
      model: options.episodeModel,
      maxCostUsd: options.episodeBudgetUsd,
      timeoutMs: options.episodeTimeoutMs,
      signal,
    });
    if (signal.aborted) return { kind: 'cancelled' };
    if (!result.ok) {
      const outcome = result.failure === 'timeout' ? 'timeout' : result.failure === 'parse_error' ? 'parse_error' : 'provider_error';
      await event(outcome, { reason: result.reason, costUsd: result.costUsd });
      return outcome === 'parse_error' ? { kind: 'drop', reason: result.reason } : { kind: 'retry', reason: result.reason };
    }

    try {
      const memoryId = await storeDraft(ctx, options, payload, result.value);
      await event('stored', { memoryId, costUsd: result.costUsd });
      return { kind: 'done' };
    } catch (error) {
      await event('store_failed', { reason: (error as Error)?.message ?? String(error), costUsd: result.costUsd });
      return { kind: 'retry', reason: 'store failed' };
    }
  };
}

/**
 * Stores the drafted episode. Novelty merge first: if a recent episode of the
 * user (within `capture.mergeWindowHours`) is so close that the new one's
 * novelty (1 − cosine) is under `capture.noveltyMin`, the new content is
 * merged into it. Otherwise it is written like any episode (dedup, chaining,
 * eviction). Either way the capture bookkeeping records the episode.
 */
async function storeDraft(ctx: EngineContext, options: ResolvedExtraction, payload: EpisodeJobPayload, draft: EpisodeDraft): Promise<string> {
  const now = ctx.now();
  const text = episodeIndexText({ goal: draft.goal, context: draft.context });
  const [vector] = await embedTexts(ctx, [text]);
  const windowStart = now - options.capture.mergeWindowHours * 3_600_000;
  const recent = ctx.index.nearest(payload.userId, vector!, 5, (doc) => doc.kind === 'episode' && doc.createdAt >= windowStart)[0];

  let memoryId: string;
  if (recent && 1 - recent.score < options.capture.noveltyMin) {
    memoryId = recent.id;
    const merged = await ctx.commit('merge a new episode into a recent one', [EPISODES, 'meta'], async (scope) => {
      const target = await findEpisode(ctx.db, recent.id);
      if (!target) return undefined;
      const next: Episode = {
        ...target,
        outcome: draft.outcome,
        quality: draft.quality,
        approach: target.approach ? `${target.approach}\n${draft.approach}`.slice(0, 2000) : draft.approach,
        lessons: draft.lessons ?? target.lessons,
        tags: [...new Set([...target.tags, ...draft.tags])].slice(0, 50),
        actors: [...new Set([...target.actors, ...draft.actors])].slice(0, 50),
        endedAt: Math.max(target.endedAt, now),
        updatedAt: now,
      };
      // Its text is unchanged, so it keeps its vector.
      await scope.put(EPISODES, [next]);
      await recordCaptured(ctx, payload.userId, now);
      return next;
    });
    if (!merged) return storeDraft(ctx, { ...options, capture: { ...options.capture, noveltyMin: 0 } }, payload, draft);
  } else {
    const { episode } = await writeEpisode(
      ctx,
      {
        userId: payload.userId,
        sessionId: payload.sessionId,
        goal: draft.goal,
        context: draft.context,
        approach: draft.approach,
        outcome: draft.outcome,
        lessons: draft.lessons,
        quality: draft.quality,
        tags: draft.tags,
        actors: draft.actors,
        outcomeStatus: draft.quality,
        provenance: options.episodeProvenance,
      },
      { source: 'episode', promptVersion: PROMPT_VERSION, inTransaction: () => recordCaptured(ctx, payload.userId, now) },
    );
    memoryId = episode.id;
  }
  return memoryId;
}

/** The capture bookkeeping of a stored episode (cooldowns count from here), inside the episode's own commit. */
async function recordCaptured(ctx: EngineContext, userId: string, now: number): Promise<void> {
  const state = await readCaptureState(ctx.db, userId);
  await ctx.db.meta.put({ key: captureKey(userId), value: { ...state, lastEpisodeTurn: state.turn, lastEpisodeAt: now } });
}

