/** The profile operations: the compact structured profile of a user (schema/profile.ts, extract/profile-sync.ts). */
import { writeProfileFields } from '../extract/profile-sync.js';
import { userIdSchema } from '../schema/common.js';
import { defaultedUserIdSchema } from '../schema/default-user.js';
import { profileFieldsSchema, profileOf } from '../schema/profile.js';
import { defineOperation, param } from './operation.js';

export const getProfile = defineOperation({
  method: 'profile.get',
  name: 'read a profile',
  input: [param(defaultedUserIdSchema, 'userId')],
  handler: async ({ ctx }, [userId]) => {
    const row = await ctx.db.profiles.get(userId);
    return profileOf(userId, row?.fields, row?.updatedAt ?? null);
  },
});

export const updateProfile = defineOperation({
  method: 'profile.update',
  name: 'update a profile',
  input: [param(userIdSchema, 'userId'), param(profileFieldsSchema)],
  handler: async (parts, [userId, patch]) => {
    const { ctx } = parts;
    const record = await ctx.commit('update a profile', ['profiles'], () => writeProfileFields(ctx, userId, patch));
    return profileOf(userId, record.fields, record.updatedAt);
  },
});

export const PROFILE_OPERATIONS = [getProfile, updateProfile] as const;
