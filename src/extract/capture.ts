import { countCapturedSince } from '../memories/episodes/episode-queries.js';
import type { EngramDatabase } from '../store/database.js';
import type { ResolvedExtraction } from './resolve-extraction.js';
import { isValidTimeZone } from '../schema/time-zone.js';
import { startOfDay } from '../time/civil.js';
import { instantOf, localOf } from '../time/zone.js';

/** Per-user capture bookkeeping, kept in the `meta` table. */
export interface CaptureState {
  /** Turns observed for this user. */
  turn: number;
  /** Turn and time of the last captured (stage-2) episode. */
  lastEpisodeTurn: number | null;
  lastEpisodeAt: number | null;
}

export const captureKey = (userId: string) => `capture:${userId}`;

export async function readCaptureState(db: EngramDatabase, userId: string): Promise<CaptureState> {
  const row = await db.meta.get(captureKey(userId));
  return (row?.value as CaptureState | undefined) ?? { turn: 0, lastEpisodeTurn: null, lastEpisodeAt: null };
}

/** Drops a user's capture bookkeeping (forget); call inside a commit over `meta`. */
export async function clearCaptureState(db: EngramDatabase, userId: string): Promise<void> {
  await db.meta.delete(captureKey(userId));
}

/** Why capture refused an episode: which control, and a sentence for people (`observe()`'s `reason` and `detail`). */
export interface CaptureRefusal {
  reason: 'capture_cooldown' | 'capture_daily_cap';
  detail: string;
}

/**
 * Episode capture controls: before an episode is scheduled for a user, a
 * cooldown in turns and in minutes since their last captured episode, and a
 * daily cap counted from local midnight in the user's time zone (profile
 * `timeZone`, else UTC). Returns why capture is refused, or null.
 */
export async function captureRefusal(
  db: EngramDatabase,
  userId: string,
  state: CaptureState,
  options: ResolvedExtraction['capture'],
  now: number,
): Promise<CaptureRefusal | null> {
  if (state.lastEpisodeTurn !== null && state.turn - state.lastEpisodeTurn < options.cooldownTurns) {
    return { reason: 'capture_cooldown', detail: `cooldown: ${state.turn - state.lastEpisodeTurn} of ${options.cooldownTurns} turns since the last episode` };
  }
  if (state.lastEpisodeAt !== null && now - state.lastEpisodeAt < options.cooldownMinutes * 60_000) {
    return {
      reason: 'capture_cooldown',
      detail: `cooldown: ${Math.floor((now - state.lastEpisodeAt) / 60_000)} of ${options.cooldownMinutes} minutes since the last episode`,
    };
  }
  const profile = await db.profiles.get(userId);
  const tz = typeof profile?.fields.timeZone === 'string' && isValidTimeZone(profile.fields.timeZone) ? profile.fields.timeZone : 'UTC';
  // The first instant of the zone's calendar day holding `now` (23 or 25 hours long where the clocks change).
  const dayStart = instantOf(startOfDay(localOf(now, tz)), tz);
  const today = await countCapturedSince(db, userId, dayStart);
  if (today >= options.maxPerDay) return { reason: 'capture_daily_cap', detail: `daily cap: ${today} episodes today (${tz}), the cap is ${options.maxPerDay}` };
  return null;
}
