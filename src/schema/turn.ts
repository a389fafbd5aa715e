import * as z from 'zod/mini';
import { idSchema, importanceSchema, metadataSchema, tagsSchema, textSchema, timestampSchema, userIdSchema } from './common.js';
import { embeddingSchema } from './fact.js';
import { builtSchema, lazySchema } from './lazy-schema.js';

/**
 * Who said a turn: `user` and `assistant` for what `observe()` keeps, or a
 * name (a conversation between people). A field, not part of the text, so
 * a name that every turn would repeat does not swamp keyword matching.
 */
export const speakerSchema = z
  .string()
  .check(
    // `abort`: an empty speaker is only that, not also "contains control characters".
    z.minLength(1, { error: 'must not be empty', abort: true }),
    z.maxLength(100, 'must be at most 100 characters'),
    z.regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters'),
  );

/**
 * One message of a conversation, kept as it was said: what `observe()`
 * stores when no LLM extracts facts from it (see `turns` in createMemory's
 * options), or what an app imports with `turns.add`.
 */
export const turnRecordSchema = lazySchema(() => z.object({
  id: idSchema,
  type: z.literal('turn'),
  userId: userIdSchema,
  sessionId: z.nullable(idSchema),
  speaker: speakerSchema,
  text: textSchema,
  /** Its place among the user's turns, in the order engram stored them (a conversation's order): the turn before it in its session is the nearest lower `seq` with the same `sessionId`. */
  seq: z.number().check(z.int(), z.nonnegative()),
  importance: importanceSchema,
  pinned: z.boolean(),
  tags: tagsSchema,
  metadata: metadataSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  lastAccessedAt: timestampSchema,
}));
/**
 * A turn as stored: one message of a conversation, with its speaker, session, place (`seq`) and time.
 * @interface
 */
export type Turn = z.infer<typeof turnRecordSchema>;

/** What `memory.turns.add()` takes: the record's own fields, only `speaker` and `text` required. */
export const turnInputSchema = lazySchema(() => z.extend(
  z.partial(
    z.pick(z.strictObject(builtSchema(turnRecordSchema).shape), {
      id: true,
      userId: true,
      sessionId: true,
      importance: true,
      pinned: true,
      tags: true,
      metadata: true,
      createdAt: true,
    }),
  ),
  {
    speaker: speakerSchema,
    text: textSchema,
    /** Pre-computed: stored instead of embedding `text` (same model as the embedder). */
    embedding: z.optional(embeddingSchema),
  },
));
/**
 * What `memory.turns.add()` takes: a speaker and a text, with its session and time when known.
 * @interface
 */
export type TurnInput = z.input<typeof turnInputSchema>;

/** `memory.turns.addMany()`: at most this many per call, stored in one transaction. */
export const MAX_TURNS_PER_CALL = 10_000;
export const turnInputsSchema = lazySchema(() => z.array(turnInputSchema).check(z.maxLength(MAX_TURNS_PER_CALL, 'at most 10,000 turns per call')));

/** Options of `turns.list`: one user's turns by time, newest first unless `order: 'asc'`. */
export const turnListQuerySchema = lazySchema(() => z.strictObject({
  userId: z.optional(userIdSchema),
  sessionId: z.optional(idSchema),
  speaker: z.optional(speakerSchema),
  limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100_000))),
  offset: z.optional(z.number().check(z.int(), z.gte(0))),
  since: z.optional(z.union([timestampSchema, z.date()])),
  until: z.optional(z.union([timestampSchema, z.date()])),
  order: z.optional(z.enum(['asc', 'desc'])),
}));
/**
 * Options of `memory.turns.list()`: whose turns, of which session or speaker, in which order, how many.
 * @interface
 */
export type TurnListQuery = z.input<typeof turnListQuerySchema>;
