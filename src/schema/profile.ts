import * as z from 'zod';
import { isValidTimeZone } from './time-zone.js';
import { timestampSchema, userIdSchema } from './common.js';

const shortText = z.string().trim().min(1).max(200);

/** The compact structured profile of one user. Every field is optional; `extra` holds free keys. */
export const profileFieldsSchema = z
  .object({
    name: shortText,
    preferredTone: shortText,
    language: shortText,
    city: shortText,
    timeZone: z.string().refine(isValidTimeZone, 'must be a valid IANA time zone, e.g. "Europe/Lisbon"'),
    goals: z.array(shortText).max(20),
    extra: z.record(z.string().min(1).max(100), z.string().max(500)),
  })
  .partial()
  .strict();
export type ProfileFields = z.infer<typeof profileFieldsSchema>;
export type ProfilePatch = z.input<typeof profileFieldsSchema>;

/** A row of the `profiles` table: the validated fields of one user. */
export const profileRecordSchema = z
  .object({
    userId: userIdSchema,
    fields: profileFieldsSchema,
    updatedAt: timestampSchema,
  })
  .strict();
export type ProfileRecord = z.infer<typeof profileRecordSchema>;

export interface Profile extends ProfileFields {
  userId: string;
  goals: string[];
  extra: Record<string, string>;
  updatedAt: number | null;
}

export function profileOf(userId: string, fields: Record<string, unknown> | undefined, updatedAt: number | null): Profile {
  const parsed = profileFieldsSchema.safeParse(fields ?? {});
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
