import * as z from 'zod/mini';
import { DEFAULT_USER_ID, userIdSchema } from './common.js';
import { builtSchema, lazySchema } from './lazy-schema.js';

/** A parsed input whose user is known: the operation's schema filled it in (see `withDefaultUser`). */
export type WithUser<T> = T & { userId: string };

/** A schema whose parsed value always has a user; its input is `S`'s own. */
export type DefaultUserSchema<S extends z.ZodMiniObject> = z.ZodMiniType<WithUser<z.output<S>>, z.input<S>>;

/**
 * `schema` with its optional `userId` defaulted to `DEFAULT_USER_ID` by zod
 * while it parses. The operations' input schemas (src/operations/) are built
 * with it, so this is the one place the default user is applied: every
 * handler receives a `userId`. Strictness and refinements are kept
 * (`z.safeExtend`); the input type is the schema's own, `userId` optional.
 * Built on first parse (./lazy-schema.ts), as `schema` may be.
 */
export function withDefaultUser<S extends z.ZodMiniObject>(schema: S | z.ZodMiniLazy<S>): DefaultUserSchema<S> {
  return lazySchema(() => z.safeExtend(builtSchema(schema), { userId: z._default(userIdSchema, DEFAULT_USER_ID) } as never)) as never;
}

/** A bare user id parameter (`profile.get(userId?)`), defaulted the same way. */
export const defaultedUserIdSchema = z._default(userIdSchema, DEFAULT_USER_ID);
