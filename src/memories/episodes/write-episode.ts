import { embedTexts } from '../../embed/embed-texts.js';
import type { EngineContext } from '../../engine-context.js';
import { QuotaError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { WithUser } from '../../schema/default-user.js';
import { episodeIndexText, type Episode, type EpisodeInput } from '../../schema/episode.js';
import type { CommitScope } from '../../store/commit.js';
import { EPISODES } from '../registry.js';
import { findAutoParent } from './chaining.js';
import { duplicatesInTransaction, findDuplicate } from './dedup.js';
import { deleteEpisodes } from './delete-episodes.js';
import { oldestUnpinned, selectEvictions } from '../../retention/eviction.js';

export interface EpisodeWriteResult {
  episode: Episode;
  /** The near-duplicate this episode replaced, if any. */
  replaced?: { id: string; similarity: number };
  evicted: string[];
}

export interface EpisodeWriteOptions {
  source?: Episode['source'];
  /** Provenance when the input does not say (trusted for direct adds). */
  defaultProvenance?: Episode['provenance'];
  promptVersion?: string | null;
  /** More writes for the same transaction (the caller's bookkeeping, e.g. stage 2's capture state in `meta`). */
  inTransaction?: () => Promise<void>;
}

/** Builds the stored record from validated input, filling every default. */
export function buildEpisode(input: WithUser<EpisodeInput>, now: number, options: EpisodeWriteOptions = {}): Episode {
  const createdAt = input.createdAt ?? now;
  const startedAt = input.startedAt ?? createdAt;
  return {
    id: input.id ?? newId(),
    type: 'episode',
    userId: input.userId,
    sessionId: input.sessionId ?? null,
    text: episodeIndexText(input),
    goal: input.goal ?? null,
    context: input.context ?? null,
    approach: input.approach ?? null,
    outcome: input.outcome ?? null,
    lessons: input.lessons ?? null,
    quality: input.quality ?? null,
    tags: input.tags ?? [],
    actors: input.actors ?? [],
    participants: input.participants ?? [],
    toolsUsed: input.toolsUsed ?? [],
    entities: input.entities ?? [],
    keyDecisions: input.keyDecisions ?? [],
    outcomeStatus: input.outcomeStatus ?? 'unknown',
    importance: input.importance ?? 0.5,
    pinned: input.pinned ?? false,
    provenance: input.provenance ?? options.defaultProvenance ?? 'trusted',
    parentId: input.parentId ?? null,
    state: input.state ?? 'active',
    source: options.source ?? 'manual',
    promptVersion: options.promptVersion ?? null,
    metadata: input.metadata ?? {},
    createdAt,
    updatedAt: now,
    startedAt,
    endedAt: input.endedAt ?? Math.max(startedAt, createdAt),
    lastAccessedAt: now,
  };
}

/**
 * The one way an episode gets written. Embeds first (outside any
 * transaction: IndexedDB commits a transaction that waits on anything else),
 * decides dedup and chaining from the index, then applies everything in a
 * single commit: replace + re-point children + insert + eviction + audit
 * events (the dedup and eviction events are emitted once it committed). A
 * failure anywhere leaves the store as it was.
 */
export async function writeEpisode(
  ctx: EngineContext,
  input: WithUser<EpisodeInput>,
  options: EpisodeWriteOptions = {},
): Promise<EpisodeWriteResult> {
  const now = ctx.now();
  const draft = buildEpisode(input, now, options);
  if (draft.parentId === draft.id) throw new ValidationError('An episode cannot be its own parent.', [{ path: 'parentId', message: 'equals the episode id' }]);
  const [vector] = await embedTexts(ctx, [draft.text]);

  // Before the transaction, only to keep chaining off the episode a duplicate would replace; dedup itself is decided inside it.
  const duplicate = findDuplicate(ctx, draft, vector!);
  const explicitParent = input.parentId !== undefined;
  const autoParent = explicitParent
    ? null
    : findAutoParent(ctx, draft, vector!, new Set([draft.id, ...(duplicate ? [duplicate.replacedId] : [])]));

  const attempt = (quotaRelief: boolean, operation: string) =>
    ctx.commit(operation, [EPISODES, 'events', ...(options.inTransaction ? (['meta'] as const) : [])], async (scope: CommitScope) => {
      evicted = [];
      const record: Episode = { ...draft };
      const existing = await ctx.db.episodes.get(record.id);
      if (existing) {
        if (existing.userId !== record.userId) {
          throw new ValidationError(`Episode "${record.id}" belongs to another user.`, [{ path: 'id', message: 'already used by another user' }]);
        }
        record.createdAt = input.createdAt ?? existing.createdAt;
        if (input.parentId === undefined) record.parentId = existing.parentId;
      }

      let replaced: EpisodeWriteResult['replaced'];
      // The index may lag behind other tabs: the check is redone here, against every episode IndexedDB holds.
      const candidates = existing ? [] : await duplicatesInTransaction(ctx, record, vector!);
      for (const candidate of candidates.sort((a, b) => b.similarity - a.similarity)) {
        const victim = await ctx.db.episodes.get(candidate.replacedId);
        if (victim) {
          replaced = { id: victim.id, similarity: candidate.similarity };
          if (!explicitParent) record.parentId = victim.parentId;
          await ctx.db.episodes.where('parentId').equals(victim.id).modify({ parentId: record.id });
          await scope.remove(EPISODES, [victim.id]);
          await scope.audit({ type: 'dedup', userId: record.userId, replacedId: victim.id, byId: record.id, similarity: candidate.similarity }, now);
          break;
        }
      }
      if (!explicitParent && !existing && !replaced && autoParent && (await ctx.db.episodes.get(autoParent))) {
        record.parentId = autoParent;
      }
      if (explicitParent && record.parentId !== null) {
        const parent = await scope.get(EPISODES, record.parentId);
        if (parent.userId !== record.userId) {
          throw new ValidationError('A parent episode must belong to the same user.', [{ path: 'parentId', message: 'belongs to another user' }]);
        }
      }

      if (quotaRelief) {
        // The disk was full: free the oldest unpinned episodes (2%, at least one) before retrying.
        const total = await ctx.db.episodes.where('userId').equals(record.userId).count();
        const relief = (await oldestUnpinned(ctx.db, EPISODES, record.userId, Math.max(1, Math.ceil(total * 0.02)))).filter((id) => id !== record.id);
        await deleteEpisodes(ctx.db, scope, relief);
        if (relief.length) await scope.audit({ type: 'eviction', userId: record.userId, evicted: relief, reason: 'quota' }, now);
        evicted.push(...relief);
      }

      // Only a rewrite of an existing episode can have a vector to replace.
      await scope.put(EPISODES, [record], [vector], { mayExist: existing ? [record.id] : [] });

      const { ttl, cap } = await selectEvictions(
        ctx.db,
        EPISODES,
        record.userId,
        { ttlDays: ctx.lifecycle.ttlDays, maxCount: ctx.lifecycle.maxEpisodes, now },
        new Set([record.id]),
      );
      await deleteEpisodes(ctx.db, scope, [...ttl, ...cap]);
      for (const [reason, ids] of [['ttl', ttl], ['cap', cap]] as const) {
        if (!ids.length) continue;
        await scope.audit({ type: 'eviction', userId: record.userId, evicted: ids, reason }, now);
        evicted.push(...ids);
      }
      await options.inTransaction?.();
      return { record, replaced };
    });

  // Filled inside the transaction (each attempt starts it afresh).
  let evicted: string[] = [];
  let outcome;
  try {
    outcome = await attempt(false, `write episode "${draft.id}"`);
  } catch (error) {
    if (!(error instanceof QuotaError)) throw error;
    outcome = await attempt(true, `write episode "${draft.id}" after evicting to free space`);
  }
  const { record, replaced } = outcome;
  return { episode: record, ...(replaced ? { replaced } : {}), evicted };
}
