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

export const factCategorySchema = z.enum(['profile', 'preference', 'goal', 'relationship', 'skill', 'other']);
/** What a fact is about: `'profile'`, `'preference'`, `'goal'`, `'relationship'`, `'skill'` or `'other'`. */
export type FactCategory = z.infer<typeof factCategorySchema>;
export const factSourceSchema = z.enum(['manual', 'extraction', 'import']);
/** `current` facts are recalled and listed; `retired` ones only show in history. */
export const factStatusSchema = z.enum(['current', 'retired']);

/** A stable thing about the user, with its validity window. */
export const factRecordSchema = lazySchema(() => z.object({
  id: idSchema,
  type: z.literal('fact'),
  userId: userIdSchema,
  sessionId: z.nullable(idSchema),
  text: textSchema,
  category: factCategorySchema,
  importance: importanceSchema,
  pinned: z.boolean(),
  tags: tagsSchema,
  source: factSourceSchema,
  status: factStatusSchema,
  validFrom: timestampSchema,
  validUntil: z.nullable(timestampSchema),
  supersededBy: z.nullable(idSchema),
  metadata: metadataSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  lastAccessedAt: timestampSchema,
}));
/**
 * A fact as stored: a stable thing about the user, with its category, importance and validity window (`validFrom`, `validUntil`, `supersededBy` once retired).
 * @interface
 */
export type Fact = z.infer<typeof factRecordSchema>;

/** The most numbers an `embedding` may have (larger than any common sentence-embedding model). */
export const MAX_EMBEDDING_DIMENSION = 8192;
const isFloat32Array = (v: unknown): v is Float32Array => Object.prototype.toString.call(v) === '[object Float32Array]';

/**
 * A pre-computed embedding the app brings instead of having engram embed the
 * text: a Float32Array or an array of numbers, finite, not all zeros. Each
 * number is checked as it will be stored, a float32 (`Math.fround`): one that
 * rounds to Infinity is refused, and so is a vector whose float32 values are
 * all zero (`[1e-46, 0, …]`: it has no direction). Its length must equal the
 * embedder's dimension, which only the engine knows (the model may load in
 * the worker), so that is checked there. It is normalised to unit length like
 * the embedder's own output.
 */
export const embeddingSchema = z
  .custom<Float32Array | number[]>((v) => isFloat32Array(v) || Array.isArray(v), 'must be a Float32Array or an array of numbers')
  .check(
    z.superRefine((v, ctx) => {
      if (v.length === 0) return void ctx.addIssue({ code: 'custom', message: 'must not be empty' });
      if (v.length > MAX_EMBEDDING_DIMENSION) {
        return void ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_EMBEDDING_DIMENSION.toLocaleString('en-US')} numbers` });
      }
      const problem = float32VectorProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', path: problem.index === undefined ? [] : [problem.index], message: problem.message });
    }),
  );

/**
 * Why `v` cannot be stored as a float32 embedding (a non-number, a number
 * outside float32 range, or no direction), or undefined when it can. Shared by
 * the schema and the engine's own check after conversion.
 */
export function float32VectorProblem(v: ArrayLike<unknown>): { index?: number; message: string } | undefined {
  let nonZero = false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(Math.fround(x))) return { index: i, message: 'must be a finite number (within float32 range)' };
    if (Math.fround(x) !== 0) nonZero = true;
  }
  return nonZero ? undefined : { message: 'must not be all zeros as float32 (it has no direction)' };
}

const strictFact = lazySchema(() => z.strictObject(builtSchema(factRecordSchema).shape));
/** The stored fields an app sets on `add` and may change on `update`, with the record's own schemas. */
const editableFields = { text: true, category: true, importance: true, pinned: true, tags: true, metadata: true } as const;

export const factInputSchema = lazySchema(() => z.extend(
  z.partial(z.pick(builtSchema(strictFact), { ...editableFields, id: true, userId: true, sessionId: true, createdAt: true })),
  {
    text: textSchema,
    /** Pre-computed: stored instead of embedding `text` (same model as the embedder, which embeds recall queries). */
    embedding: z.optional(embeddingSchema),
  },
));
/**
 * What `memory.facts.add()` takes. Only `text` is required; `embedding` stores a vector computed elsewhere.
 * @interface
 */
export type FactInput = z.input<typeof factInputSchema>;

/** Options of `facts.add`. */
export const addOptionsSchema = lazySchema(() => z.strictObject({
  /**
   * Merge with a near-identical current fact of the same user and category
   * (default true), as `observe()` does: the same fact at cosine ≥
   * `facts.autoUpdateAt`, or by the LLM's same-fact check between
   * `facts.checkFrom` and it when a provider is set; the old version stays
   * in `facts.history()`. `false` inserts the fact as it is. A fact with an
   * `id` the app chose is never merged (it is written under that id).
   */
  merge: z.optional(z.boolean()),
}));
/**
 * Options of `memory.facts.add(input, options)`: `{ merge: false }` stores the fact as given.
 * @interface
 */
export type AddOptions = z.input<typeof addOptionsSchema>;

/** Options of `facts.addMany`. */
export const addManyOptionsSchema = lazySchema(() => z.strictObject({
  /** Merge each fact as `facts.add` does (default false: a bulk load inserts as given, without a neighbour search per fact). */
  merge: z.optional(z.boolean()),
  /** `false`: resolve to the new facts' ids (in input order) instead of the records, which saves cloning them back to the page. */
  returnRecords: z.optional(z.boolean()),
}));
/**
 * Options of `memory.facts.addMany(inputs, options)`.
 * @interface
 */
export type AddManyOptions = z.input<typeof addManyOptionsSchema>;

export const factPatchSchema = lazySchema(() => z.partial(z.pick(builtSchema(strictFact), editableFields)));
/**
 * What `memory.facts.update(id, patch)` takes: the fields to change (`null` clears a field that may be cleared).
 * @interface
 */
export type FactPatch = z.input<typeof factPatchSchema>;
