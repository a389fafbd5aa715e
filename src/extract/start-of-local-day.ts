/** Epoch ms of the most recent local midnight in `timeZone` (DST-safe: checked against the zone's own offset). */
export function startOfLocalDay(now: number, timeZone: string): number {
  const parts = localParts(now, timeZone);
  // Local midnight as if it were UTC, then shift by the zone's offset at that moment (twice, for DST edges).
  let guess = Date.UTC(parts.year, parts.month - 1, parts.day);
  for (let i = 0; i < 2; i++) guess = Date.UTC(parts.year, parts.month - 1, parts.day) - offsetOf(guess, timeZone);
  return guess;
}

function offsetOf(at: number, timeZone: string): number {
  const p = localParts(at, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1000) * 1000;
}

function localParts(at: number, timeZone: string) {
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  });
  const out: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(at))) if (part.type !== 'literal') out[part.type] = Number(part.value);
  return out as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}
