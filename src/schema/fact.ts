import { z } from 'zod';
import {
  idSchema,
  importanceSchema,
  metadataSchema,
  tagsSchema,
  textSchema,
  timestampSchema,
  userIdSchema,
} from './common.js';

export const factCategorySchema = z.enum(['profile', 'preference', 'goal', 'relationship', 'skill', 'other']);
export type FactCategory = z.infer<typeof factCategorySchema>;
export const factSourceSchema = z.enum(['manual', 'extraction', 'import']);
/** `current` facts are recalled and listed; `retired` ones only show in history. */
export const factStatusSchema = z.enum(['current', 'retired']);

/** A stable thing about the user, with its validity window. */
export const factRecordSchema = z.object({
  id: idSchema,
  type: z.literal('fact'),
  userId: userIdSchema,
  sessionId: idSchema.nullable(),
  text: textSchema,
  category: factCategorySchema,
  importance: importanceSchema,
  pinned: z.boolean(),
  tags: tagsSchema,
  source: factSourceSchema,
  status: factStatusSchema,
  validFrom: timestampSchema,
  validUntil: timestampSchema.nullable(),
  supersededBy: idSchema.nullable(),
  metadata: metadataSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  lastAccessedAt: timestampSchema,
});
export type Fact = z.infer<typeof factRecordSchema>;

export const factInputSchema = z
  .object({
    id: idSchema.optional(),
    userId: userIdSchema.optional(),
    sessionId: idSchema.nullable().optional(),
    text: textSchema,
    category: factCategorySchema.optional(),
    importance: importanceSchema.optional(),
    pinned: z.boolean().optional(),
    tags: tagsSchema.optional(),
    metadata: metadataSchema.optional(),
    createdAt: timestampSchema.optional(),
  })
  .strict();
export type FactInput = z.input<typeof factInputSchema>;

export const factPatchSchema = z
  .object({
    text: textSchema,
    category: factCategorySchema,
    importance: importanceSchema,
    pinned: z.boolean(),
    tags: tagsSchema,
    metadata: metadataSchema,
  })
  .partial()
  .strict();
export type FactPatch = z.input<typeof factPatchSchema>;
