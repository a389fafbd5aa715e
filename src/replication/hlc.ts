import * as z from 'zod/mini';
import { SyncError } from '../errors.js';
import { parseInput } from '../schema/parse.js';
import { deviceIdSchema, type DeviceId } from './device-id.js';

/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks"): the
 * wall time in milliseconds, a counter for events within the same
 * millisecond (or while the wall clock stands still or goes back), and the
 * device id as the final tie-break. Two different events never carry the
 * same clock, and an event that saw another carries a larger one.
 *
 * Serialised as fixed-width lower-case hex, then the device id:
 * `0190a1b2c3d4` (wall) `0000` (counter) `-` `device`. Because the numeric
 * fields have a fixed width, comparing the strings by UTF-16 code unit (as
 * JavaScript's `<` does) orders clocks by (wall, counter, device), and so
 * does Postgres on a `COLLATE "C"` column: the hub and the devices agree on
 * which write is last without parsing anything.
 */
export interface Hlc {
  /** Milliseconds since the epoch (at most 2^48 - 1). */
  wall: number;
  /** Events within the same `wall` (0 to 65535). */
  counter: number;
  device: DeviceId;
}

const WALL_DIGITS = 12;
const COUNTER_DIGITS = 4;
const MAX_WALL = 16 ** WALL_DIGITS - 1;
const MAX_COUNTER = 16 ** COUNTER_DIGITS - 1;
const HLC_PATTERN = /^([0-9a-f]{12})([0-9a-f]{4})-([A-Za-z0-9_-]{1,64})$/;

export const hlcSchema = z.string().check(z.regex(HLC_PATTERN, 'must be a hybrid logical clock (12 hex digits of wall time, 4 of counter, "-", device id)'));
/** A serialised clock (see `Hlc`). */
export type HlcString = z.infer<typeof hlcSchema>;

export function formatHlc(clock: Hlc): HlcString {
  if (!Number.isSafeInteger(clock.wall) || clock.wall < 0 || clock.wall > MAX_WALL) throw new RangeError(`HLC wall time out of range: ${clock.wall}`);
  if (!Number.isSafeInteger(clock.counter) || clock.counter < 0 || clock.counter > MAX_COUNTER) throw new RangeError(`HLC counter out of range: ${clock.counter}`);
  return `${clock.wall.toString(16).padStart(WALL_DIGITS, '0')}${clock.counter.toString(16).padStart(COUNTER_DIGITS, '0')}-${clock.device}`;
}

/** The parts of a serialised clock; throws a RangeError on text that is not one (validate with `hlcSchema` first). */
export function parseHlc(text: string): Hlc {
  const match = HLC_PATTERN.exec(text);
  if (!match) throw new RangeError(`Not a hybrid logical clock: ${JSON.stringify(text.slice(0, 100))}`);
  return { wall: parseInt(match[1]!, 16), counter: parseInt(match[2]!, 16), device: match[3]! };
}

/** -1, 0 or 1 as `a` is before, the same as, or after `b`: (wall, counter, device) order. */
export function compareHlc(a: HlcString, b: HlcString): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The device that made an event, read from its clock. */
export function hlcDevice(clock: HlcString): DeviceId {
  return clock.slice(WALL_DIGITS + COUNTER_DIGITS + 1);
}

/** The default furthest a remote clock may run ahead of this device's wall clock: a day. */
export const DEFAULT_MAX_CLOCK_DRIFT_MS = 24 * 60 * 60 * 1000;

const hybridClockOptionsSchema = z.strictObject({
  device: deviceIdSchema,
  now: z.optional(z.custom<() => number>((v) => typeof v === 'function', 'must be a function returning epoch milliseconds')),
  last: z.optional(hlcSchema),
  maxDriftMs: z.optional(z.number().check(z.int(), z.gte(0))),
});

export interface HybridClockOptions {
  device: DeviceId;
  /** The physical clock (default `Date.now`); injected in tests. */
  now?: () => number;
  /** The last clock this device issued or observed, as persisted: the clock never goes below it, across restarts. */
  last?: HlcString;
  /**
   * How far ahead of this device's wall clock a remote clock may be before it
   * is refused (default a day). Without a bound, one device whose clock is
   * set years ahead would drag every clock there and win every later
   * conflict.
   */
  maxDriftMs?: number;
}

export interface HybridClock {
  readonly device: DeviceId;
  /** A clock for a local event (a commit): after every clock issued or observed so far. */
  tick(): HlcString;
  /**
   * Takes in a remote event's clock, so that the next `tick()` is after it.
   * Throws a SyncError (reason 'clock') without changing anything when the
   * remote clock is more than `maxDriftMs` ahead of the wall clock.
   */
  observe(remote: HlcString): void;
  /** The last clock issued or observed (what to persist). */
  readonly last: HlcString;
}

/**
 * A hybrid logical clock for one device. It stays monotonic when the wall
 * clock goes backwards (the counter advances instead), and after a restart
 * when given the persisted `last`.
 */
export function createHybridClock(options: HybridClockOptions): HybridClock {
  const opts = parseInput(hybridClockOptionsSchema, options, 'createHybridClock', { copy: false });
  const device = opts.device;
  const now = opts.now ?? Date.now;
  const maxDrift = opts.maxDriftMs ?? DEFAULT_MAX_CLOCK_DRIFT_MS;
  // Only the persisted clock's time is kept: the device part is this device's.
  let state: Hlc = opts.last ? { ...parseHlc(opts.last), device } : { wall: 0, counter: 0, device };

  /** The next state after `wall`, `counter`: the counter overflowing moves the logical wall time on by a millisecond. */
  const advance = (wall: number, counter: number): Hlc => (counter > MAX_COUNTER ? { wall: wall + 1, counter: 0, device } : { wall, counter, device });

  return {
    device,
    get last() {
      return formatHlc(state);
    },
    tick() {
      const physical = Math.floor(now());
      state = physical > state.wall ? { wall: physical, counter: 0, device } : advance(state.wall, state.counter + 1);
      return formatHlc(state);
    },
    observe(remoteText) {
      const remote = parseHlc(remoteText);
      const physical = Math.floor(now());
      if (remote.wall > physical + maxDrift) {
        throw new SyncError(`A change's clock is ${remote.wall - physical} ms ahead of this device's clock, over the ${maxDrift} ms allowed: the clock of device "${remote.device}" (or this one's) is wrong; correct it, or raise maxDriftMs.`, {
          reason: 'clock',
          device: remote.device,
          aheadMs: remote.wall - physical,
        });
      }
      const wall = Math.max(state.wall, remote.wall, physical);
      if (wall === state.wall && wall === remote.wall) state = advance(wall, Math.max(state.counter, remote.counter) + 1);
      else if (wall === state.wall) state = advance(wall, state.counter + 1);
      else if (wall === remote.wall) state = advance(wall, remote.counter + 1);
      else state = { wall, counter: 0, device };
    },
  };
}
