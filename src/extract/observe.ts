import { throwIfCallerAborted } from '../jobs/call-aborts.js';
import * as z from 'zod/mini';
import { embedTexts } from '../embed/embed-texts.js';
import type { EngineContext } from '../engine-context.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import type { LLMProvider } from '../llm/types.js';
import { MAX_TEXT_CHARS } from '../schema/common.js';
import type { WithUser } from '../schema/default-user.js';
import type { observeInputSchema } from '../schema/observe-input.js';
import type { CommitScope } from '../store/commit.js';
import type { CallFailure } from '../llm/call-llm.js';
import { captureKey, captureRefusal, readCaptureState, type CaptureRefusal } from './capture.js';
import { decideFacts, planFactWrites } from './facts-merge.js';
import type { ResolvedExtraction } from './resolve-extraction.js';
import { proposeProfile, writeProfileFields } from './profile-sync.js';
import { runStage1 } from './stage1.js';
import { EPISODE_JOB, type EpisodeJobPayload } from './stage2.js';
import type { Fact } from '../schema/fact.js';
import type { Turn } from '../schema/turn.js';
import { buildTurn } from '../memories/turns/build-turn.js';
import type { TurnStore } from '../memories/turns/turn-store.js';
import { EPISODES, FACTS, TURNS } from '../memories/registry.js';

export { observeInputSchema, type ObserveInput } from '../schema/observe-input.js';

/** Why `observe()` stored nothing from the LLM (or skipped the episode). */
export type ObserveReason =
  | 'no_llm'
  | `stage1_${CallFailure}`
  | 'no_episode'
  | 'capture_cooldown'
  | 'capture_daily_cap';

/**
 * What `memory.observe()` did with one turn: facts stored, replaced or skipped, turns kept, whether an episode was scheduled, and why not when something was not done.
 */
export interface ObserveResult {
  /**
   * Facts the stage-1 call extracted: new ones stored, current ones replaced by a merge, and ones skipped (below `facts.minImportance`, or the same as a current fact).
   */
  facts: { stored: number; replaced: number; skipped: number };
  /** The exchange kept as `turn` memories (the user's message and the assistant's; see createMemory's `turns.keep`). */
  turns: { stored: number };
  /**
   * Whether a stage-2 job will write an episode from this turn (in the background; `memory.idle()` waits for it).
   */
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
  /** Ends the LLM calls: the engine closing, or the caller's signal. */
  signal?: AbortSignal;
  /** The caller's own signal: once it fires, the turn writes nothing and rejects with an AbortError. */
  caller?: AbortSignal;
  /** Where the exchange itself is kept, and when (its policy's `keep`). */
  turns: TurnStore;
}

/**
 * One conversation turn: stage 1 (facts + episode decision, one call), fact
 * merge-on-write and the profile proposal, then ONE commit with the facts,
 * the profile fields, the turn counter and the stage-2 job; the job runs in
 * the background. Never throws for LLM
 * failures: they come back as `reason` (storage failures do throw, typed).
 *
 * The exchange itself is kept as two `turn` memories (speaker `user`, then
 * `assistant` one millisecond later, so they list in the order they were
 * said) when no provider is configured (`turns.keep: 'without-llm'`, the
 * default) or always (`'always'`), in the same commit as the rest.
 */
export async function observe(ctx: EngineContext, deps: ObserveDeps, input: WithUser<z.output<typeof observeInputSchema>>): Promise<ObserveResult> {
  const { userId } = input;
  const sessionId = input.sessionId ?? null;
  const none = { stored: 0, replaced: 0, skipped: 0 };
  /** The turn's `extraction` event: emitted after its commit, its audit row written in it. */
  const extraction = (outcome: 'ok' | 'skipped' | 'failed', facts: number, hasEpisode: boolean, reason?: string) => {
    const data = { outcome, facts, hasEpisode, ...(reason ? { reason } : {}) };
    return {
      event: { type: 'extraction' as const, userId, ...data },
      row: { type: 'extraction', userId, at: ctx.now(), data },
    };
  };

  // Checked before every commit, and first thing inside it: an abort either comes before the transaction writes or is too late.
  const checkCaller = () => throwIfCallerAborted(deps.caller, 'observe');
  checkCaller();
  const keepTurns = deps.turns.policy.keep === 'always' || (deps.turns.policy.keep === 'without-llm' && !deps.llm);
  const kept = keepTurns ? await exchangeTurns(ctx, input, userId, sessionId) : { records: [], vectors: [] };
  const turns = { stored: kept.records.length };
  // exchangeTurns gives no ids, so buildTurn drew each at random: the id-space check need not read them.
  const drawnIds = kept.records.map((record) => record.id);
  const putTurns = (scope: CommitScope) => deps.turns.putInTransaction(scope, kept.records, kept.vectors, [], drawnIds);
  checkCaller();
  if (!deps.llm) {
    const { event, row } = extraction('skipped', 0, false, 'no LLM provider is configured');
    await ctx.commit('record a skipped extraction', ['events', TURNS], async (scope) => {
      checkCaller();
      await putTurns(scope);
      await scope.audit(event, row.at);
    });
    return { facts: none, turns, episodeScheduled: false, reason: 'no_llm', detail: 'no LLM provider is configured', costUsd: 0 };
  }

  const stage1 = await runStage1(deps.llm, input, { model: deps.options.model, timeoutMs: deps.options.timeoutMs, signal: deps.signal });
  let costUsd = stage1.costUsd;
  checkCaller();
  if (!stage1.ok) {
    const { event, row } = extraction('failed', 0, false, stage1.reason);
    await ctx.commit('count a turn', ['meta', 'events', TURNS], async (scope) => {
      checkCaller();
      await putTurns(scope);
      const state = await readCaptureState(ctx.db, userId);
      await ctx.db.meta.put({ key: captureKey(userId), value: { ...state, turn: state.turn + 1 } });
      await scope.audit(event, row.at);
    });
    return { facts: none, turns, episodeScheduled: false, reason: `stage1_${stage1.failure}`, detail: stage1.reason, costUsd };
  }

  const extracted = stage1.value.facts;
  const vectors = await embedTexts(ctx, extracted.map((f) => f.text));
  const decided = await decideFacts(ctx, { llm: deps.llm, options: deps.options, signal: deps.signal }, userId, extracted, vectors);
  costUsd += decided.costUsd;
  const now = ctx.now();
  const plan = planFactWrites(decided.decisions, { userId, sessionId, now, mode: deps.options.facts.mergeMode });
  const vectorOf = await storedVectors(ctx, plan.embed, new Map(extracted.map((f, i) => [f.text, vectors[i]!])));
  // The profile proposal comes before the write, so the whole turn is one commit (one `change`).
  const changedFacts = plan.embed.map((f) => f.text);
  const profile = changedFacts.length ? await proposeProfile(ctx, { llm: deps.llm, options: deps.options, signal: deps.signal }, userId, changedFacts) : undefined;
  costUsd += profile?.costUsd ?? 0;

  const { db } = ctx;
  let refusal: CaptureRefusal | null = null;
  let job: ReturnType<JobQueue['newJob']> | undefined;
  const { event, row } = extraction('ok', plan.counts.stored + plan.counts.replaced, stage1.value.hasEpisode);
  checkCaller();
  await ctx.commit('store the facts of a turn', [FACTS, TURNS, EPISODES, 'jobs', 'meta', 'profiles', 'events'], async (scope) => {
    checkCaller();
    refusal = null;
    job = undefined;
    await putTurns(scope);
    await scope.put(FACTS, plan.puts, vectorOf);
    if (profile && Object.keys(profile.fields).length) await writeProfileFields(ctx, userId, profile.fields);

    const state = await readCaptureState(db, userId);
    const next = { ...state, turn: state.turn + 1 };
    if (stage1.value.hasEpisode) {
      refusal = await captureRefusal(db, userId, next, deps.options.capture, now);
      if (refusal) {
        await db.events.add({ type: 'capture', userId, at: now, data: { skipped: true, reason: refusal.detail } });
      } else {
        const payload: EpisodeJobPayload = { userId, sessionId, user: input.user, assistant: input.assistant };
        const queued = deps.queue.newJob(newId(), EPISODE_JOB, userId, payload);
        await db.jobs.put(queued);
        job = queued;
        scope.afterCommit(() => deps.queue.schedule(queued));
      }
    }
    await db.meta.put({ key: captureKey(userId), value: next });
    await scope.audit(event, row.at);
  });

  const result: ObserveResult = { facts: plan.counts, turns, episodeScheduled: !!job, costUsd };
  if (!stage1.value.hasEpisode) result.reason = 'no_episode';
  else if (refusal) {
    const { reason, detail } = refusal as CaptureRefusal;
    result.reason = reason;
    result.detail = detail;
  }
  return result;
}

/**
 * The vector each fact to store is written with. A fact stored with the text
 * it was extracted with reuses the vector the merge search embedded; only a
 * text the merge changed (an LLM-composed one) is embedded here.
 */
async function storedVectors(ctx: EngineContext, facts: readonly Fact[], embedded: ReadonlyMap<string, Float32Array>): Promise<Map<string, Float32Array>> {
  const fresh = [...new Set(facts.map((f) => f.text).filter((text) => !embedded.has(text)))];
  const freshVectors = await embedTexts(ctx, fresh);
  const byText = new Map([...embedded, ...fresh.map((text, i) => [text, freshVectors[i]!] as const)]);
  return new Map(facts.map((f) => [f.id, byText.get(f.text)!]));
}

/** The exchange as turn records (empty sides left out) and their vectors, built before the commit (embedding is not transactional work). */
async function exchangeTurns(
  ctx: EngineContext,
  input: { user: string; assistant: string },
  userId: string,
  sessionId: string | null,
): Promise<{ records: Turn[]; vectors: Float32Array[] }> {
  const now = ctx.now();
  const records = (
    [
      ['user', input.user, now],
      ['assistant', input.assistant, now + 1],
    ] as const
  )
    .filter(([, text]) => text.trim().length > 0)
    // A side may be longer than a memory's text can be (observe takes 200,000 characters): the turn keeps the first 100,000.
    .map(([speaker, text, createdAt]) => buildTurn({ userId, sessionId, speaker, text: text.slice(0, MAX_TEXT_CHARS), createdAt }, now));
  return { records, vectors: await embedTexts(ctx, records.map(TURNS.indexedText)) };
}
