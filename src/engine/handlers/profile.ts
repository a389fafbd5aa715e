import { writeProfileFields } from '../../extract/profile-sync.js';
import type { PROFILE_OPERATIONS } from '../../operations/profile.js';
import { profileOf } from '../../schema/profile.js';
import type { HandlersOf } from './handler.js';

/** What each profile operation does (operations/profile.ts declares them). */
export const PROFILE_HANDLERS = {
  'profile.get': async ({ ctx }, [userId]) => {
    const row = await ctx.db.profiles.get(userId);
    return profileOf(userId, row?.fields, row?.updatedAt ?? null);
  },
  'profile.update': async ({ ctx }, [userId, patch]) => {
    const record = await ctx.commit('update a profile', ['profiles'], () => writeProfileFields(ctx, userId, patch));
    return profileOf(userId, record.fields, record.updatedAt);
  },
} satisfies HandlersOf<typeof PROFILE_OPERATIONS>;
