import * as z from 'zod/mini';
import { userIdSchema } from '../schema/common.js';
import { defineOperation, param } from './operation.js';

/** Applies TTL then the count cap now, for one user or (without `userId`) all; returns the evicted ids. */
export const pruneNow = defineOperation({ method: 'prune', name: 'prune', input: [param(z.strictObject({ userId: z.optional(userIdSchema) }))] });
