import * as z from 'zod/mini';
import { safeParse } from '../schema/safe-parse.js';
import { builtSchema } from '../schema/lazy-schema.js';
import type { EngineContext } from '../engine-context.js';
import type { LLMProvider } from '../llm/types.js';
import { profileFieldsSchema, profileOf, type ProfileRecord } from '../schema/profile.js';
import { callLLM } from '../llm/call-llm.js';
import type { ResolvedExtraction } from './resolve-extraction.js';
import { PROFILE_SYSTEM } from './prompts.js';

const proposalSchema = z.object({ updates: z.record(z.string(), z.unknown()) });

export interface ProfileProposal {
  /** The valid proposed fields, to merge into the stored profile (`writeProfileFields`). */
  fields: Record<string, unknown>;
  ignored: string[];
  costUsd: number;
}

/**
 * After facts are created or merged, one `profile` call proposes field
 * updates. Each proposed field is validated on its own (zod); invalid ones are
 * ignored. The caller writes the valid ones in the turn's own commit.
 */
export async function proposeProfile(
  ctx: EngineContext,
  deps: { llm: LLMProvider; options: ResolvedExtraction; signal?: AbortSignal },
  userId: string,
  factTexts: string[],
): Promise<ProfileProposal> {
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
  if (!result.ok) return { fields: {}, ignored: [], costUsd: result.costUsd };

  const accepted: Record<string, unknown> = {};
  const ignored: string[] = [];
  const shape = builtSchema(profileFieldsSchema).shape as Record<string, z.ZodMiniType>;
  for (const [key, value] of Object.entries(result.value.updates)) {
    // Own keys only: a reply naming `constructor` or `__proto__` must not reach Object.prototype's members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const parsed = field ? safeParse(field, value) : undefined;
    if (parsed?.success && parsed.data !== undefined) accepted[key] = parsed.data;
    else ignored.push(key);
  }
  return { fields: accepted, ignored, costUsd: result.costUsd };
}

/** Merges fields into a user's stored profile; call inside a commit over `profiles`. */
export async function writeProfileFields(ctx: EngineContext, userId: string, fields: Record<string, unknown>): Promise<ProfileRecord> {
  const latest = await ctx.db.profiles.get(userId);
  const record: ProfileRecord = { userId, fields: { ...(latest?.fields ?? {}), ...fields }, updatedAt: ctx.now() };
  await ctx.db.profiles.put(record);
  return record;
}
