import { z } from 'zod';
import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import type { LLMProvider } from '../llm/types.js';
import { idSchema, userIdSchema, DEFAULT_USER_ID } from '../schema/common.js';
import { applyWritten } from '../store/apply-to-index.js';
import { toStorageError } from '../store/transaction-errors.js';
import { deleteVectors, putVectors } from '../store/vector-blocks.js';
import type { CallFailure } from './call-llm.js';
import { captureKey, captureRefusal, readCaptureState } from './capture.js';
import { decideFacts, planFactWrites } from './facts-merge.js';
import type { ResolvedExtraction } from './options.js';
import { syncProfile } from './profile-sync.js';
import { runStage1 } from './stage1.js';
import { EPISODE_JOB, type EpisodeJobPayload } from './stage2.js';

const MAX_TURN_CHARS = 200_000;

export const observeInputSchema = z
  .object({
    userId: userIdSchema.optional(),
    sessionId: idSchema.optional(),
    user: z.string().max(MAX_TURN_CHARS, `must be at most ${MAX_TURN_CHARS} characters`),
    assistant: z.string().max(MAX_TURN_CHARS, `must be at most ${MAX_TURN_CHARS} characters`),
  })
  .strict()
  .refine((i) => i.user.trim().length > 0 || i.assistant.trim().length > 0, { message: 'user and assistant are both empty', path: ['user'] });
export type ObserveInput = z.input<typeof observeInputSchema>;

/** Why `observe()` stored nothing from the LLM (or skipped the episode). */
export type ObserveReason =
  | 'no_llm'
  | `stage1_${CallFailure}`
  | 'no_episode'
  | 'capture_cooldown'
  | 'capture_daily_cap';

export interface ObserveResult {
  facts: { stored: number; replaced: number; skipped: number };
  episodeScheduled: boolean;
  /** Present when something was not done: no provider, a stage-1 failure, or a capture control. */
  reason?: ObserveReason;
  /** Human-readable detail for `reason`. */
  detail?: string;
  /** USD spent by this turn's synchronous calls (stage 1, same-fact checks, compose, profile). */
  costUsd: number;
}

export interface ObserveDeps {
  llm: LLMProvider | undefined;
  options: ResolvedExtraction;
  queue: JobQueue;
  signal?: AbortSignal;
}

/**
 * One conversation turn: stage 1 (facts + episode decision, one call), fact
 * merge-on-write, then in ONE transaction the facts, the turn counter and the
 * stage-2 job; the job runs in the background. Never throws for LLM
 * failures: they come back as `reason` (storage failures do throw, typed).
 */
export async function observe(ctx: EngineContext, deps: ObserveDeps, input: z.output<typeof observeInputSchema>): Promise<ObserveResult> {
  const userId = input.userId ?? DEFAULT_USER_ID;
  const sessionId = input.sessionId ?? null;
  const none = { stored: 0, replaced: 0, skipped: 0 };
  const record = (outcome: 'ok' | 'skipped' | 'failed', facts: number, hasEpisode: boolean, reason?: string) => {
    ctx.emit({ type: 'extraction', userId, outcome, facts, hasEpisode, ...(reason ? { reason } : {}) });
    void ctx.db.events.add({ type: 'extraction', userId, at: ctx.now(), data: { outcome, facts, hasEpisode, ...(reason ? { reason } : {}) } }).catch(() => undefined);
  };

  if (!deps.llm) {
    record('skipped', 0, false, 'no LLM provider is configured');
    return { facts: none, episodeScheduled: false, reason: 'no_llm', detail: 'no LLM provider is configured', costUsd: 0 };
  }

  const stage1 = await runStage1(deps.llm, input, { model: deps.options.model, timeoutMs: deps.options.timeoutMs, signal: deps.signal });
  let costUsd = stage1.costUsd;
  if (!stage1.ok) {
    record('failed', 0, false, stage1.reason);
    await bumpTurn(ctx, userId);
    return { facts: none, episodeScheduled: false, reason: `stage1_${stage1.failure}`, detail: stage1.reason, costUsd };
  }

  const extracted = stage1.value.facts;
  const vectors = await embedTexts(ctx, extracted.map((f) => f.text));
  const decided = await decideFacts(ctx, { llm: deps.llm, options: deps.options, signal: deps.signal }, userId, extracted, vectors);
  costUsd += decided.costUsd;
  const now = ctx.now();
  const plan = planFactWrites(decided.decisions, { userId, sessionId, now, mode: deps.options.facts.mergeMode });
  const finalVectors = await embedTexts(ctx, plan.embed.map((f) => f.text));
  const vectorOf = new Map(plan.embed.map((f, i) => [f.id, finalVectors[i]!]));

  const { db } = ctx;
  let refusal: string | null = null;
  let job: ReturnType<JobQueue['newJob']> | undefined;
  try {
    await db.transaction('rw', [db.facts, db.vectorBlocks, db.jobs, db.meta, db.episodes, db.profiles], async () => {
      await db.facts.bulkPut(plan.puts);
      await putVectors(db, [...vectorOf].map(([id, vector]) => ({ id, userId, kind: 'fact' as const, vector })));
      if (plan.retired.length) await deleteVectors(db, plan.retired);

      const state = await readCaptureState(db, userId);
      const next = { ...state, turn: state.turn + 1 };
      if (stage1.value.hasEpisode) {
        refusal = await captureRefusal(db, userId, next, deps.options.capture, now);
        if (!refusal) {
          const payload: EpisodeJobPayload = { userId, sessionId, user: input.user, assistant: input.assistant };
          job = deps.queue.newJob(newId(), EPISODE_JOB, userId, payload);
          await db.jobs.put(job);
        }
      }
      await db.meta.put({ key: captureKey(userId), value: next });
    });
  } catch (error) {
    throw toStorageError(error, 'store the facts of a turn');
  }

  applyWritten(ctx, plan.puts.map((record) => ({ record, vector: vectorOf.get(record.id) })));
  if (plan.puts.length) ctx.emit({ type: 'change', written: plan.puts.map((f) => f.id), deleted: [] });
  if (job) deps.queue.schedule(job);
  record('ok', plan.counts.stored + plan.counts.replaced, stage1.value.hasEpisode);

  const changedFacts = plan.embed.map((f) => f.text);
  if (changedFacts.length) {
    const profile = await syncProfile(ctx, { llm: deps.llm, options: deps.options, signal: deps.signal }, userId, changedFacts);
    costUsd += profile.costUsd;
  }

  const result: ObserveResult = { facts: plan.counts, episodeScheduled: !!job, costUsd };
  if (!stage1.value.hasEpisode) result.reason = 'no_episode';
  else if (refusal) {
    result.reason = (refusal as string).startsWith('daily cap') ? 'capture_daily_cap' : 'capture_cooldown';
    result.detail = refusal;
    void db.events.add({ type: 'capture', userId, at: now, data: { skipped: true, reason: refusal } }).catch(() => undefined);
  }
  return result;
}

async function bumpTurn(ctx: EngineContext, userId: string): Promise<void> {
  await ctx.db.transaction('rw', ctx.db.meta, async () => {
    const state = await readCaptureState(ctx.db, userId);
    await ctx.db.meta.put({ key: captureKey(userId), value: { ...state, turn: state.turn + 1 } });
  });
}
