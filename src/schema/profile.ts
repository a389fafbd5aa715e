import * as z from 'zod/mini';
import { safeParse } from './safe-parse.js';
import { isValidTimeZone } from './time-zone.js';
import { timestampSchema, userIdSchema } from './common.js';
import { lazySchema } from './lazy-schema.js';

const shortText = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));

/** The compact structured profile of one user. Every field is optional; `extra` holds free keys. */
export const profileFieldsSchema = lazySchema(() => z.partial(z.strictObject({
  name: shortText,
  preferredTone: shortText,
  language: shortText,
  city: shortText,
  timeZone: z.string().check(z.refine(isValidTimeZone, 'must be a valid IANA time zone, e.g. "Europe/Lisbon"')),
  goals: z.array(shortText).check(z.maxLength(20)),
  extra: z.record(z.string().check(z.minLength(1), z.maxLength(100)), z.string().check(z.maxLength(500))),
})));
export type ProfileFields = z.infer<typeof profileFieldsSchema>;
/**
 * What `memory.profile.update(userId, patch)` takes: any of the profile's fields.
 * @interface
 */
export type ProfilePatch = z.input<typeof profileFieldsSchema>;

/** A row of the `profiles` table: the validated fields of one user. */
export const profileRecordSchema = lazySchema(() => z.strictObject({
  userId: userIdSchema,
  fields: profileFieldsSchema,
  updatedAt: timestampSchema,
}));
export type ProfileRecord = z.infer<typeof profileRecordSchema>;

/**
 * A user's compact structured profile (`memory.profile.get`): name, city, time zone, language, tone, goals and free `extra` keys; `updatedAt` is null when nothing is known.
 */
export interface Profile extends ProfileFields {
  userId: string;
  goals: string[];
  extra: Record<string, string>;
  updatedAt: number | null;
}

export function profileOf(userId: string, fields: Record<string, unknown> | undefined, updatedAt: number | null): Profile {
  const parsed = safeParse(profileFieldsSchema, fields ?? {});
  const f = parsed.success ? parsed.data : {};
  return { userId, ...f, goals: f.goals ?? [], extra: f.extra ?? {}, updatedAt };
}

/**
 * One compact line for prompts, e.g.
 * `Profile: Ana; city Porto; time zone Europe/Lisbon; language Portuguese; tone concise; goals: run a marathon`.
 * Empty when nothing is known.
 */
export function profileLine(profile: Profile): string {
  const parts: string[] = [];
  if (profile.name) parts.push(profile.name);
  if (profile.city) parts.push(`city ${profile.city}`);
  if (profile.timeZone) parts.push(`time zone ${profile.timeZone}`);
  if (profile.language) parts.push(`language ${profile.language}`);
  if (profile.preferredTone) parts.push(`tone ${profile.preferredTone}`);
  if (profile.goals.length) parts.push(`goals: ${profile.goals.join(', ')}`);
  for (const [key, value] of Object.entries(profile.extra)) parts.push(`${key} ${value}`);
  return parts.length ? `Profile: ${parts.join('; ')}` : '';
}
