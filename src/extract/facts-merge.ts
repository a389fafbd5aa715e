import * as z from 'zod/mini';
import type { EngineContext } from '../engine-context.js';
import { newId } from '../ids.js';
import type { LLMProvider } from '../llm/types.js';
import type { Fact } from '../schema/fact.js';
import { buildFact } from '../memories/facts/build-fact.js';
import { findFact } from '../memories/facts/find-fact.js';
import { callLLM } from '../llm/call-llm.js';
import type { ResolvedExtraction } from './resolve-extraction.js';
import { COMPOSE_SYSTEM, SAME_FACT_SYSTEM } from './prompts.js';
import type { ExtractedFact } from './schemas.js';

/**
 * Merge-on-write for extracted facts, per fact:
 * 1. Search the user's current facts of the same category (top `mergeTopK`).
 * 2. Best similarity ≥ `autoUpdateAt`: the same fact; merge without asking
 *    (no LLM call; the newer statement's text wins).
 * 3. Otherwise each neighbour ≥ `checkFrom`, best first, goes to one
 *    `same-fact` LLM check, stopping at the first match; the merged text is
 *    composed by a `compose` call, falling back to the newer statement.
 * 4. No match: create, unless importance < `minImportance` (then skip).
 * Merges never lose the old version: see `planFactWrites`.
 */
export type FactDecision =
  | { kind: 'create'; fact: ExtractedFact }
  | { kind: 'merge'; fact: ExtractedFact; target: Fact; text: string; similarity: number; checkedByLLM: boolean }
  | { kind: 'skip'; fact: ExtractedFact; reason: string };

const sameFactSchema = z.object({ same: z.boolean() });
const composeSchema = z.object({ text: z.string().check(z.minLength(3), z.maxLength(500)) });

export async function decideFacts(
  ctx: EngineContext,
  deps: { llm?: LLMProvider; options: ResolvedExtraction; signal?: AbortSignal },
  userId: string,
  facts: ExtractedFact[],
  vectors: Float32Array[],
): Promise<{ decisions: FactDecision[]; costUsd: number }> {
  const { options } = deps;
  const decisions: FactDecision[] = [];
  const claimed = new Set<string>();
  let costUsd = 0;

  for (const [i, fact] of facts.entries()) {
    const neighbours = ctx.index.nearest(
      userId,
      vectors[i]!,
      options.facts.mergeTopK,
      (doc) => doc.kind === 'fact' && doc.fields.category === fact.category && !claimed.has(doc.id),
    );
    let match: { id: string; score: number; checkedByLLM: boolean } | undefined;
    const best = neighbours[0];
    if (best && best.score >= options.facts.autoUpdateAt) {
      match = { ...best, checkedByLLM: false };
    } else if (deps.llm) {
      for (const neighbour of neighbours) {
        if (neighbour.score < options.facts.checkFrom) break;
        const existing = await findFact(ctx.db, neighbour.id);
        if (!existing) continue;
        const check = await callLLM(deps.llm, {
          task: 'same-fact',
          system: SAME_FACT_SYSTEM,
          input: `EXISTING: ${existing.text}\nNEW: ${fact.text}`,
          schema: sameFactSchema,
          model: options.model,
          timeoutMs: options.timeoutMs,
          signal: deps.signal,
        });
        costUsd += check.costUsd;
        if (check.ok && check.value.same) {
          match = { ...neighbour, checkedByLLM: true };
          break;
        }
      }
    }

    const target = match && (await findFact(ctx.db, match.id));
    if (match && target && target.status === 'current') {
      claimed.add(target.id);
      let text = fact.text;
      if (match.checkedByLLM && options.facts.mergeMode === 'recreate' && deps.llm) {
        const composed = await callLLM(deps.llm, {
          task: 'compose',
          system: COMPOSE_SYSTEM,
          input: `EXISTING: ${target.text}\nNEW: ${fact.text}`,
          schema: composeSchema,
          model: options.model,
          timeoutMs: options.timeoutMs,
          signal: deps.signal,
        });
        costUsd += composed.costUsd;
        // Deterministic fallback when the call fails: the newer statement wins.
        if (composed.ok) text = composed.value.text;
      }
      decisions.push({ kind: 'merge', fact, target, text, similarity: match.score, checkedByLLM: match.checkedByLLM });
    } else if (fact.importance < options.facts.minImportance) {
      decisions.push({ kind: 'skip', fact, reason: `importance ${fact.importance} is below ${options.facts.minImportance}` });
    } else {
      decisions.push({ kind: 'create', fact });
    }
  }
  return { decisions, costUsd };
}

export interface FactWritePlan {
  /** Records to put, with the text each must be embedded with (new or changed current facts). */
  puts: Fact[];
  /** Current facts whose text is new: they need a vector. */
  embed: Fact[];
  /** Facts that stopped being current: their vectors go. */
  retired: string[];
  counts: { stored: number; replaced: number; skipped: number };
}

/**
 * Turns decisions into records. History is never lost:
 * - `recreate`: a new fact carries the merged text; the old one is retired
 *   (`status: 'retired'`, `validUntil`, `supersededBy` = the new id).
 * - `update`: the old fact keeps its id and gets the merged text; a retired
 *   snapshot of its previous version is written with `supersededBy` = its id.
 */
export function planFactWrites(
  decisions: FactDecision[],
  context: { userId: string; sessionId: string | null; now: number; mode: 'recreate' | 'update'; source?: Fact['source'] },
): FactWritePlan {
  const source = context.source ?? 'extraction';
  const plan: FactWritePlan = { puts: [], embed: [], retired: [], counts: { stored: 0, replaced: 0, skipped: 0 } };
  const { now } = context;
  for (const d of decisions) {
    if (d.kind === 'skip') {
      plan.counts.skipped++;
      continue;
    }
    if (d.kind === 'create') {
      const fact = buildFact({ userId: context.userId, sessionId: context.sessionId, text: d.fact.text, category: d.fact.category, importance: d.fact.importance }, now, source);
      plan.puts.push(fact);
      plan.embed.push(fact);
      plan.counts.stored++;
      continue;
    }
    const importance = Math.max(d.target.importance, d.fact.importance);
    plan.counts.replaced++;
    if (context.mode === 'recreate') {
      const next: Fact = {
        ...buildFact({ userId: context.userId, sessionId: context.sessionId, text: d.text, category: d.target.category, importance, tags: d.target.tags, pinned: d.target.pinned, metadata: d.target.metadata }, now, source),
      };
      plan.puts.push(next, { ...d.target, status: 'retired', validUntil: now, supersededBy: next.id, updatedAt: now });
      plan.embed.push(next);
      plan.retired.push(d.target.id);
    } else {
      const snapshot: Fact = { ...d.target, id: `${d.target.id}@${now.toString(36)}-${newId().slice(0, 8)}`, status: 'retired', validUntil: now, supersededBy: d.target.id, updatedAt: now };
      const updated: Fact = { ...d.target, text: d.text, importance, validFrom: now, updatedAt: now, sessionId: context.sessionId ?? d.target.sessionId };
      plan.puts.push(snapshot, updated);
      plan.embed.push(updated);
    }
  }
  return plan;
}
