import { embedTexts } from '../../embed/embed-texts.js';
import { vectorsFor } from '../../embed/provided-embeddings.js';
import type { EngineContext } from '../../engine-context.js';
import type { LLMProvider } from '../../llm/types.js';
import type { WithUser } from '../../schema/default-user.js';
import type { ResolvedExtraction } from '../../extract/resolve-extraction.js';
import type { Fact, FactInput } from '../../schema/fact.js';
import { decideFacts, planFactWrites } from '../../extract/facts-merge.js';
import { FACTS } from '../registry.js';

/**
 * A fact the app adds directly, merged like an extracted one (facts-merge.ts):
 * when it is the same as a current fact of the user and category, the merged
 * version is written in one commit (the old one kept in history, its tags,
 * metadata and pin joined with the new input's) and returned; otherwise this
 * returns null and the caller inserts the fact as given, with the returned
 * vector so it is embedded once. `shown` gives the fact merged into any
 * access recorded but not yet written (recall/access-times.ts).
 */
export async function addFactMerging(
  ctx: EngineContext,
  deps: { llm: LLMProvider | undefined; options: ResolvedExtraction; signal?: AbortSignal; shown?: <R extends { id: string; lastAccessedAt: number }>(record: R) => R },
  input: WithUser<FactInput>,
): Promise<{ merged: Fact } | { merged: null; vector: Float32Array }> {
  const [vector] = await vectorsFor(ctx, [input], { call: 'facts.add', path: () => 'embedding' });
  const { userId } = input;
  const extracted = { text: input.text, category: input.category ?? 'other', importance: input.importance ?? 0.5 };
  const { decisions } = await decideFacts(ctx, deps, userId, [extracted], [vector!]);
  const decision = decisions[0];
  if (decision?.kind !== 'merge') return { merged: null, vector: vector! };
  // A recall's access to the fact merged into may not be written yet (facts.add does not wait for that write): its versions keep it.
  deps.shown?.(decision.target);

  const now = ctx.now();
  const plan = planFactWrites([decision], { userId, sessionId: input.sessionId ?? null, now, mode: deps.options.facts.mergeMode, source: 'manual' });
  const current = plan.embed[0]!;
  current.tags = [...new Set([...current.tags, ...(input.tags ?? [])])].slice(0, 50);
  current.pinned = current.pinned || (input.pinned ?? false);
  current.metadata = { ...current.metadata, ...(input.metadata ?? {}) };
  const currentVector = current.text === input.text ? vector! : (await embedTexts(ctx, [current.text]))[0]!;
  await ctx.commit('add a fact', [FACTS], (scope) => scope.put(FACTS, plan.puts, new Map([[current.id, currentVector]])));
  return { merged: current };
}
