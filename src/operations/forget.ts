import * as z from 'zod/mini';
import { userIdSchema } from '../schema/common.js';
import { defineOperation, param } from './operation.js';

/** Deletes everything stored for one user (the user is required: there is no default to forget). */
export const forgetAUser = defineOperation({ method: 'forget', name: 'forget a user', input: [param(z.strictObject({ userId: userIdSchema }))] });
