import * as z from 'zod/mini';

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone name ("Europe/Lisbon", "UTC") the platform knows. */
export const timeZoneSchema = z.string().check(z.refine(isValidTimeZone, 'must be a valid IANA time zone, e.g. "Europe/Lisbon"'));
