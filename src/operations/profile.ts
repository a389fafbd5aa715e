/** The profile operations: the compact structured profile of a user (engine/handlers/profile.ts runs them). */
import { userIdSchema } from '../schema/common.js';
import { defaultedUserIdSchema } from '../schema/default-user.js';
import { profileFieldsSchema } from '../schema/profile.js';
import { defineOperation, param } from './operation.js';

export const getProfile = defineOperation({ method: 'profile.get', name: 'read a profile', input: [param(defaultedUserIdSchema, 'userId')] });

export const updateProfile = defineOperation({ method: 'profile.update', name: 'update a profile', input: [param(userIdSchema, 'userId'), param(profileFieldsSchema)] });

export const PROFILE_OPERATIONS = [getProfile, updateProfile] as const;
