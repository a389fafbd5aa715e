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
import { builtSchema, lazySchema } from './lazy-schema.js';

export const qualitySchema = z.enum(['success', 'partial', 'failure']);
/** Structured outcome of the situation the episode describes (lifecycle metadata). */
export const outcomeStatusSchema = z.enum(['success', 'failure', 'partial', 'ongoing', 'unknown']);
export const provenanceSchema = z.enum(['trusted', 'untrusted']);
export const episodeStateSchema = z.enum(['active', 'summarized', 'archived']);
export const episodeSourceSchema = z.enum(['manual', 'episode', 'import']);

const shortList = z.array(z.string().check(z.minLength(1), z.maxLength(500))).check(z.maxLength(50));

/** An episode as stored: "what happened, what we learned". */
export const episodeRecordSchema = lazySchema(() => z.object({
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
}));
/**
 * An episode as stored: what happened and what was learned, with its arc (`parentId`), state, provenance and metadata.
 * @interface
 */
export type Episode = z.infer<typeof episodeRecordSchema>;

/** The free-text parts of a structured episode, as an app writes them. */
const proseSchema = z.string().check(z.maxLength(100_000));
const strictEpisode = lazySchema(() => z.strictObject(builtSchema(episodeRecordSchema).shape));

/** The stored fields an app sets on `add` and may change on `update`, with the record's own schemas. */
const editableFields = {
  quality: true,
  tags: true,
  actors: true,
  participants: true,
  toolsUsed: true,
  entities: true,
  keyDecisions: true,
  outcomeStatus: true,
  importance: true,
  pinned: true,
  provenance: true,
  parentId: true,
  state: true,
  metadata: true,
  endedAt: true,
} as const;

/** What `memory.episodes.add()` accepts. Only `text` (or `goal`) is required. */
export const episodeInputSchema = lazySchema(() => z
  .partial(
    z.extend(z.pick(builtSchema(strictEpisode), { ...editableFields, id: true, userId: true, sessionId: true, createdAt: true, startedAt: true }), {
      text: textSchema,
      goal: textSchema,
      context: proseSchema,
      approach: proseSchema,
      outcome: proseSchema,
      lessons: proseSchema,
    }),
  )
  .check(
    z.refine((e) => e.text !== undefined || e.goal !== undefined, {
      message: 'an episode needs `text` or `goal`',
      path: ['text'],
    }),
  ));
/**
 * What `memory.episodes.add()` takes. Only `text` (or `goal`) is required.
 * @interface
 */
export type EpisodeInput = z.input<typeof episodeInputSchema>;

/** Fields `memory.episodes.update()` may change. Identity and timestamps are engram's. */
export const episodePatchSchema = lazySchema(() => z.partial(
  z.extend(z.pick(builtSchema(strictEpisode), editableFields), {
    text: textSchema,
    goal: z.nullable(textSchema),
    context: z.nullable(proseSchema),
    approach: z.nullable(proseSchema),
    outcome: z.nullable(proseSchema),
    lessons: z.nullable(proseSchema),
  }),
));
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
