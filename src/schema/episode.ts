import * as z from 'zod';
import {
  idSchema,
  importanceSchema,
  metadataSchema,
  tagsSchema,
  textSchema,
  timestampSchema,
  userIdSchema,
} from './common.js';

export const qualitySchema = z.enum(['success', 'partial', 'failure']);
/** Structured outcome of the situation the episode describes (lifecycle metadata). */
export const outcomeStatusSchema = z.enum(['success', 'failure', 'partial', 'ongoing', 'unknown']);
export const provenanceSchema = z.enum(['trusted', 'untrusted']);
export const episodeStateSchema = z.enum(['active', 'summarized', 'archived']);
export const episodeSourceSchema = z.enum(['manual', 'episode', 'import']);

const shortList = z.array(z.string().min(1).max(500)).max(50);

/** An episode as stored: "what happened, what we learned". */
export const episodeRecordSchema = z.object({
  id: idSchema,
  type: z.literal('episode'),
  userId: userIdSchema,
  sessionId: idSchema.nullable(),
  /** The text that is embedded and keyword-indexed. */
  text: textSchema,
  goal: z.string().nullable(),
  context: z.string().nullable(),
  approach: z.string().nullable(),
  outcome: z.string().nullable(),
  lessons: z.string().nullable(),
  quality: qualitySchema.nullable(),
  tags: tagsSchema,
  actors: shortList,
  participants: shortList,
  toolsUsed: shortList,
  entities: shortList,
  keyDecisions: shortList,
  outcomeStatus: outcomeStatusSchema,
  importance: importanceSchema,
  pinned: z.boolean(),
  provenance: provenanceSchema,
  parentId: idSchema.nullable(),
  state: episodeStateSchema,
  source: episodeSourceSchema,
  promptVersion: z.string().nullable(),
  metadata: metadataSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  startedAt: timestampSchema,
  endedAt: timestampSchema,
  lastAccessedAt: timestampSchema,
});
export type Episode = z.infer<typeof episodeRecordSchema>;

/** What `memory.episodes.add()` accepts. Only `text` (or `goal`) is required. */
export const episodeInputSchema = z
  .object({
    id: idSchema.optional(),
    userId: userIdSchema.optional(),
    sessionId: idSchema.nullable().optional(),
    text: textSchema.optional(),
    goal: textSchema.optional(),
    context: z.string().max(100_000).optional(),
    approach: z.string().max(100_000).optional(),
    outcome: z.string().max(100_000).optional(),
    lessons: z.string().max(100_000).optional(),
    quality: qualitySchema.optional(),
    tags: tagsSchema.optional(),
    actors: shortList.optional(),
    participants: shortList.optional(),
    toolsUsed: shortList.optional(),
    entities: shortList.optional(),
    keyDecisions: shortList.optional(),
    outcomeStatus: outcomeStatusSchema.optional(),
    importance: importanceSchema.optional(),
    pinned: z.boolean().optional(),
    provenance: provenanceSchema.optional(),
    parentId: idSchema.nullable().optional(),
    state: episodeStateSchema.optional(),
    metadata: metadataSchema.optional(),
    createdAt: timestampSchema.optional(),
    startedAt: timestampSchema.optional(),
    endedAt: timestampSchema.optional(),
  })
  .strict()
  .refine((e) => e.text !== undefined || e.goal !== undefined, {
    message: 'an episode needs `text` or `goal`',
    path: ['text'],
  });
export type EpisodeInput = z.input<typeof episodeInputSchema>;

/** Fields `memory.episodes.update()` may change. Identity and timestamps are engram's. */
export const episodePatchSchema = z
  .object({
    text: textSchema,
    goal: textSchema.nullable(),
    context: z.string().max(100_000).nullable(),
    approach: z.string().max(100_000).nullable(),
    outcome: z.string().max(100_000).nullable(),
    lessons: z.string().max(100_000).nullable(),
    quality: qualitySchema.nullable(),
    tags: tagsSchema,
    actors: shortList,
    participants: shortList,
    toolsUsed: shortList,
    entities: shortList,
    keyDecisions: shortList,
    outcomeStatus: outcomeStatusSchema,
    importance: importanceSchema,
    pinned: z.boolean(),
    provenance: provenanceSchema,
    parentId: idSchema.nullable(),
    state: episodeStateSchema,
    metadata: metadataSchema,
    endedAt: timestampSchema,
  })
  .partial()
  .strict();
export type EpisodePatch = z.input<typeof episodePatchSchema>;

/** The indexed text of a structured episode: goal and context, as the extraction issue specifies. */
export function episodeIndexText(e: { text?: string | null; goal?: string | null; context?: string | null }): string {
  if (e.text) return e.text;
  return [e.goal, e.context].filter((part): part is string => !!part && part.trim().length > 0).join('\n\n');
}
