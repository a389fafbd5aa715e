import type { forgetAUser } from '../../operations/forget.js';
import { forgetUser } from '../../users/forget-user.js';
import type { HandlersOf } from './handler.js';

/** Deletes everything stored for one user (operations/forget.ts). */
export const FORGET_HANDLERS = {
  forget: ({ ctx }, [{ userId }]) => forgetUser(ctx, userId),
} satisfies HandlersOf<readonly [typeof forgetAUser]>;
