import * as z from 'zod/mini';

/** Zone names the platform has accepted: asking it again builds an `Intl.DateTimeFormat` each time. */
const known = new Set<string>();

export function isValidTimeZone(timeZone: string): boolean {
  if (known.has(timeZone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    return false;
  }
  if (known.size >= 64) known.clear();
  known.add(timeZone);
  return true;
}

/** An IANA time zone name ("Europe/Lisbon", "UTC") the platform knows. */
export const timeZoneSchema = z.string().check(z.refine(isValidTimeZone, 'must be a valid IANA time zone, e.g. "Europe/Lisbon"'));
