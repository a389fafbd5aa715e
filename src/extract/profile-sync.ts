import { z } from 'zod';
import type { EngineContext } from '../engine-context.js';
import type { LLMProvider } from '../llm/types.js';
import { profileFieldsSchema, profileOf } from '../schema/profile.js';
import { callLLM } from './call-llm.js';
import type { ResolvedExtraction } from './options.js';
import { PROFILE_SYSTEM } from './prompts.js';

const proposalSchema = z.object({ updates: z.record(z.string(), z.unknown()) });

/**
 * After facts are created or merged, one `profile` call proposes field
 * updates. Each proposed field is validated on its own (zod); invalid ones are
 * ignored, valid ones applied. Returns the fields that changed.
 */
export async function syncProfile(
  ctx: EngineContext,
  deps: { llm: LLMProvider; options: ResolvedExtraction; signal?: AbortSignal },
  userId: string,
  factTexts: string[],
): Promise<{ applied: string[]; ignored: string[]; costUsd: number }> {
  const row = await ctx.db.profiles.get(userId);
  const current = profileOf(userId, row?.fields, row?.updatedAt ?? null);
  const result = await callLLM(deps.llm, {
    task: 'profile',
    system: PROFILE_SYSTEM,
    input: `CURRENT PROFILE: ${JSON.stringify({ ...current, userId: undefined, updatedAt: undefined })}\nNEW FACTS:\n${factTexts.map((t) => `- ${t}`).join('\n')}`,
    schema: proposalSchema,
    model: deps.options.model,
    timeoutMs: deps.options.timeoutMs,
    signal: deps.signal,
  });
  if (!result.ok) return { applied: [], ignored: [], costUsd: result.costUsd };

  const accepted: Record<string, unknown> = {};
  const ignored: string[] = [];
  const shape = profileFieldsSchema.shape as Record<string, z.ZodType>;
  for (const [key, value] of Object.entries(result.value.updates)) {
    // Own keys only: a reply naming `constructor` or `__proto__` must not reach Object.prototype's members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const parsed = field?.safeParse(value);
    if (parsed?.success && parsed.data !== undefined) accepted[key] = parsed.data;
    else ignored.push(key);
  }
  const applied = Object.keys(accepted);
  if (applied.length) {
    await ctx.db.transaction('rw', ctx.db.profiles, async () => {
      const latest = await ctx.db.profiles.get(userId);
      await ctx.db.profiles.put({ userId, fields: { ...(latest?.fields ?? {}), ...accepted }, updatedAt: ctx.now() });
    });
  }
  return { applied, ignored, costUsd: result.costUsd };
}
