import * as z from 'zod/mini';

/**
 * What is left of a cancellable call's options once its `signal` is taken
 * out (facade/call-signal.ts): nothing, for `observe` and `idle`. Its input
 * type is what the app passes, `signal` included, as the facade takes the
 * signal out before this schema runs.
 */
export const callOptionsRestSchema: z.ZodMiniType<Record<string, never>, { signal?: AbortSignal }> = z.strictObject({});
