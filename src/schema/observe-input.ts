import * as z from 'zod/mini';
import { idSchema, userIdSchema } from './common.js';
import { lazySchema } from './lazy-schema.js';

/** One turn's size limit per side: far beyond any chat turn, well below what would stall the extraction call. */
const MAX_TURN_CHARS = 200_000;

/** What `memory.observe()` takes: one conversation turn (see src/extract/observe.ts). */
export const observeInputSchema = lazySchema(() => z
  .strictObject({
    userId: z.optional(userIdSchema),
    sessionId: z.optional(idSchema),
    user: z.string().check(z.maxLength(MAX_TURN_CHARS, `must be at most ${MAX_TURN_CHARS} characters`)),
    assistant: z.string().check(z.maxLength(MAX_TURN_CHARS, `must be at most ${MAX_TURN_CHARS} characters`)),
  })
  .check(z.refine((i) => i.user.trim().length > 0 || i.assistant.trim().length > 0, { message: 'user and assistant are both empty', path: ['user'] })));
/**
 * What `memory.observe()` takes: one conversation turn, the user's message and the assistant's reply.
 * @interface
 */
export type ObserveInput = z.input<typeof observeInputSchema>;
