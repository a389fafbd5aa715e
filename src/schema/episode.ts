import * as z from 'zod/mini';
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

const shortList = z.array(z.string().check(z.minLength(1), z.maxLength(500))).check(z.maxLength(50));

/** An episode as stored: "what happened, what we learned". */
export const episodeRecordSchema = z.object({
  id: idSchema,
  type: z.literal('episode'),
  userId: userIdSchema,
  sessionId: z.nullable(idSchema),
  /** The text that is embedded and keyword-indexed. */
  text: textSchema,
  goal: z.nullable(z.string()),
  context: z.nullable(z.string()),
  approach: z.nullable(z.string()),
  outcome: z.nullable(z.string()),
  lessons: z.nullable(z.string()),
  quality: z.nullable(qualitySchema),
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
  parentId: z.nullable(idSchema),
  state: episodeStateSchema,
  source: episodeSourceSchema,
  promptVersion: z.nullable(z.string()),
  metadata: metadataSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  startedAt: timestampSchema,
  endedAt: timestampSchema,
  lastAccessedAt: timestampSchema,
});
/**
 * An episode as stored: what happened and what was learned, with its arc (`parentId`), state, provenance and metadata.
 * @interface
 */
export type Episode = z.infer<typeof episodeRecordSchema>;

/** What `memory.episodes.add()` accepts. Only `text` (or `goal`) is required. */
export const episodeInputSchema = z.strictObject({
  id: z.optional(idSchema),
  userId: z.optional(userIdSchema),
  sessionId: z.optional(z.nullable(idSchema)),
  text: z.optional(textSchema),
  goal: z.optional(textSchema),
  context: z.optional(z.string().check(z.maxLength(100_000))),
  approach: z.optional(z.string().check(z.maxLength(100_000))),
  outcome: z.optional(z.string().check(z.maxLength(100_000))),
  lessons: z.optional(z.string().check(z.maxLength(100_000))),
  quality: z.optional(qualitySchema),
  tags: z.optional(tagsSchema),
  actors: z.optional(shortList),
  participants: z.optional(shortList),
  toolsUsed: z.optional(shortList),
  entities: z.optional(shortList),
  keyDecisions: z.optional(shortList),
  outcomeStatus: z.optional(outcomeStatusSchema),
  importance: z.optional(importanceSchema),
  pinned: z.optional(z.boolean()),
  provenance: z.optional(provenanceSchema),
  parentId: z.optional(z.nullable(idSchema)),
  state: z.optional(episodeStateSchema),
  metadata: z.optional(metadataSchema),
  createdAt: z.optional(timestampSchema),
  startedAt: z.optional(timestampSchema),
  endedAt: z.optional(timestampSchema),
}).check(z.refine((e) => e.text !== undefined || e.goal !== undefined, {
  message: 'an episode needs `text` or `goal`',
  path: ['text'],
}));
/**
 * What `memory.episodes.add()` takes. Only `text` (or `goal`) is required.
 * @interface
 */
export type EpisodeInput = z.input<typeof episodeInputSchema>;

/** Fields `memory.episodes.update()` may change. Identity and timestamps are engram's. */
export const episodePatchSchema = z.partial(z.strictObject({
  text: textSchema,
  goal: z.nullable(textSchema),
  context: z.nullable(z.string().check(z.maxLength(100_000))),
  approach: z.nullable(z.string().check(z.maxLength(100_000))),
  outcome: z.nullable(z.string().check(z.maxLength(100_000))),
  lessons: z.nullable(z.string().check(z.maxLength(100_000))),
  quality: z.nullable(qualitySchema),
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
  parentId: z.nullable(idSchema),
  state: episodeStateSchema,
  metadata: metadataSchema,
  endedAt: timestampSchema,
}));
/**
 * What `memory.episodes.update(id, patch)` takes: the fields to change.
 * @interface
 */
export type EpisodePatch = z.input<typeof episodePatchSchema>;

/** The indexed text of a structured episode: goal and context, as the extraction issue specifies. */
export function episodeIndexText(e: { text?: string | null; goal?: string | null; context?: string | null }): string {
  if (e.text) return e.text;
  return [e.goal, e.context].filter((part): part is string => !!part && part.trim().length > 0).join('\n\n');
}
